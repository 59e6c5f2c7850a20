import type { User } from '../store/user-store.js';
import { html } from './escape-html.js';
import { layout } from './layout.js';
import { userForm } from './user-form.js';

/**
 * The edit form for a stored user, prefilled with `overrides` (the `name`/`pro` query values)
 * over the stored record. Showing it changes nothing; the form saves with `PUT /:id`.
 */
export function renderEditPage(user: User, overrides: { name?: string; pro?: string }): string {
  return layout(
    `Edit user ${user.id}`,
    html`<h1>Edit user ${user.id}</h1>
<noscript><p class="notice">Saving needs JavaScript: the form sends <code>PUT /${user.id}</code>.</p></noscript>
${userForm({
  action: `/${user.id}`,
  method: 'PUT',
  submitLabel: 'Save changes',
  values: {
    id: String(user.id),
    name: overrides.name ?? user.name,
    pro: overrides.pro ?? user.pro,
  },
  idReadOnly: true,
})}`,
  );
}
