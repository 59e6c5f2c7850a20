import { layout } from './layout.js';
import { html } from './safe-html.js';
import { userForm } from './user-form.js';

/** The add form; it posts to `/add`. */
export function renderAddPage(): string {
  return layout(
    'Add a user',
    html`<h1>Add a user</h1>
${userForm({ action: '/add', method: 'POST', submitLabel: 'Add user', values: {}, idReadOnly: false })}`,
  );
}
