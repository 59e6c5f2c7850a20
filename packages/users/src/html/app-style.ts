/** The stylesheet of the UI, served as /assets/app.css. */
export const APP_STYLE = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0 auto; max-width: 60rem; padding: 0 1rem 2rem; }
header nav { display: flex; gap: 1rem; padding: 1rem 0; border-bottom: 1px solid #8884; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: #777; padding: 0.25rem 0; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid #8884; overflow-wrap: anywhere; }
td.actions { white-space: nowrap; }
td.actions > * { margin-right: 0.75rem; }
.field { display: flex; flex-direction: column; gap: 0.25rem; margin-bottom: 1rem; max-width: 30rem; }
input { font: inherit; padding: 0.4rem; }
input[readonly] { background: #8882; color: inherit; border: 1px dashed #8888; cursor: not-allowed; }
.field-hint { color: #777; margin: 0; font-size: 0.9em; }
.proposed { border: 1px solid #b26a00; border-left-width: 4px; padding: 0.5rem 1rem; margin-bottom: 1rem; max-width: 30rem; }
.proposed h2 { font-size: 1rem; margin: 0.25rem 0; }
input[aria-invalid="true"] { outline: 2px solid #c62828; }
button, a.button { font: inherit; padding: 0.4rem 0.9rem; cursor: pointer; }
button.danger { color: #fff; background: #c62828; border: 0; border-radius: 3px; }
.field-error, .form-errors { color: #c62828; margin: 0; }
.form-errors { padding: 0.5rem; border: 1px solid #c62828; margin-bottom: 1rem; }
.form-actions { display: flex; gap: 1rem; align-items: center; }
.pager { display: flex; gap: 1rem; margin-top: 1rem; }
:focus-visible { outline: 3px solid #1565c0; outline-offset: 2px; }
`;

/** A small favicon so browsers' /favicon requests don't reach the /:id route. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="5" r="3" fill="#1565c0"/><path d="M2 15c0-4 3-6 6-6s6 2 6 6z" fill="#1565c0"/></svg>';
