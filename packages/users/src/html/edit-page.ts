import type { User } from '../store/user-store.js';
import { layout } from './layout.js';
import { html, type SafeHtml } from './safe-html.js';
import { userForm } from './user-form.js';

function proposedChange(user: User, proposed: { name?: string; pro?: string }): SafeHtml {
  const rows: SafeHtml[] = [];
  if (proposed.name !== undefined && proposed.name !== user.name)
    rows.push(html`<li>Name: <strong>${proposed.name}</strong> (stored: ${user.name})</li>`);
  if (proposed.pro !== undefined && proposed.pro !== user.pro)
    rows.push(html`<li>Profession: <strong>${proposed.pro}</strong> (stored: ${user.pro})</li>`);
  if (rows.length === 0) return html``;
  return html`<section class="proposed" aria-labelledby="proposed-title">
<h2 id="proposed-title">Proposed change (from the link, not saved)</h2>
<ul>${rows}</ul>
<button type="button" data-apply-proposed data-name="${proposed.name ?? user.name}" data-pro="${proposed.pro ?? user.pro}">Put the proposed values in the form</button>
</section>`;
}

/**
 * The edit form for a stored user, filled with the stored record. `name`/`pro` from the query
 * (old edit links carried them) are shown apart as a proposed change, never as if stored.
 * Showing it changes nothing; the form saves with `PUT /:id`.
 */
export function renderEditPage(user: User, proposed: { name?: string; pro?: string }): string {
  return layout(
    `Edit user ${user.id}`,
    html`<h1>Edit user ${user.id}</h1>
<noscript><p class="notice">Saving needs JavaScript: the form sends <code>PUT /${user.id}</code>.</p></noscript>
${proposedChange(user, proposed)}
${userForm({
  action: `/${user.id}`,
  method: 'PUT',
  submitLabel: 'Save changes',
  values: { id: String(user.id), name: user.name, pro: user.pro },
  idReadOnly: true,
})}`,
  );
}
