import { layout } from './layout.js';
import { html } from './safe-html.js';

/** The example requests of the landing page (JSON API), relative to the server's origin. */
export const EXAMPLE_REQUESTS = [
  {
    title: 'Add a user',
    curl: `curl -i -X POST ORIGIN/add -H 'content-type: application/json' -d '{"id":1,"name":"Ada Lovelace","pro":"mathematician"}'`,
  },
  { title: 'List users', curl: 'curl ORIGIN/users' },
  { title: 'Read one', curl: 'curl ORIGIN/1' },
  {
    title: 'Update one',
    curl: `curl -X PUT ORIGIN/1 -H 'content-type: application/json' -d '{"name":"Ada King","pro":"analyst"}'`,
  },
  { title: 'Delete one', curl: 'curl -i -X DELETE ORIGIN/1' },
] as const;

/** `GET /` for browsers: what this service is, with links to the UI, docs, health and examples. */
export function renderLandingPage(origin: string): string {
  return layout(
    'Home',
    html`<h1>Sluice users</h1>
<p>A user-record service: a JSON API and this HTML interface over the same store.</p>
<ul>
<li><a href="/users">Open the user list</a> (add, edit and delete in the browser)</li>
<li><a href="/docs">API docs</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
<li><a href="/health">Health</a></li>
</ul>
<h2>Try the JSON API</h2>
${EXAMPLE_REQUESTS.map(
  (e) => html`<h3>${e.title}</h3>
<pre><code>${e.curl.replaceAll('ORIGIN', origin)}</code></pre>`,
)}`,
  );
}

/** The 404 page for browsers; `path` is user input and is escaped. */
export function renderNotFoundPage(path: string): string {
  return layout(
    'Not found',
    html`<h1>Not found</h1>
<p>Nothing at <code>${path}</code>.</p>
<p><a href="/users">Users</a> · <a href="/">Home</a> · <a href="/docs">API docs</a></p>`,
  );
}

/** Any other error for browsers: the status and the API's message (escaped). */
export function renderErrorPage(status: number, message: string): string {
  return layout(
    status === 404 ? 'Not found' : `Error ${status}`,
    html`<h1>${status === 404 ? 'Not found' : `Error ${status}`}</h1>
<p>${message}</p>
<p><a href="/users">Users</a> · <a href="/">Home</a></p>`,
  );
}
