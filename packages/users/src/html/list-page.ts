import type { User } from '../store/user-store.js';
import type { Page } from '../user-input.js';
import { layout } from './layout.js';
import { html, type SafeHtml } from './safe-html.js';

function editHref(user: User): string {
  // Only the id: the edit page reads the stored record (values in a link go stale).
  return `/edit?id=${user.id}`;
}

function row(user: User): SafeHtml {
  return html`<tr data-user-id="${user.id}">
<td>${user.id}</td>
<td>${user.name}</td>
<td>${user.pro}</td>
<td class="actions">
<a href="${editHref(user)}" aria-label="Edit ${user.name} (id ${user.id})">Edit</a>
<button type="button" class="danger" data-delete-id="${user.id}" data-delete-name="${user.name}" aria-label="Delete ${user.name} (id ${user.id})">Delete</button>
</td>
</tr>`;
}

function pager(page: Page, total: number): SafeHtml {
  if (total <= page.limit && page.offset === 0) return html``;
  const link = (offset: number, label: string, rel: string) =>
    html`<a rel="${rel}" href="/users?limit=${page.limit}&amp;offset=${offset}">${label}</a>`;
  const prev =
    page.offset > 0 ? link(Math.max(0, page.offset - page.limit), 'Previous', 'prev') : html``;
  const next =
    page.offset + page.limit < total ? link(page.offset + page.limit, 'Next', 'next') : html``;
  const last = Math.min(total, page.offset + page.limit);
  return html`<nav aria-label="Pages" class="pager">${prev}
<span>${total === 0 ? 0 : Math.min(page.offset + 1, total)}–${last} of ${total}</span>
${next}</nav>`;
}

/** The user list: a table with edit links and delete buttons (confirmation in app.js). */
export function renderListPage(users: User[], total: number, page: Page): string {
  const table =
    users.length === 0
      ? html`<p>No users ${page.offset > 0 ? 'on this page' : 'yet'}. <a href="/add">Add the first one</a>.</p>`
      : html`<table>
<caption>Users ordered by id</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Profession</th><th scope="col">Actions</th></tr></thead>
<tbody>
${users.map(row)}
</tbody>
</table>`;
  return layout(
    'Users',
    html`<h1>Users</h1>
<p><a class="button" href="/add">Add a user</a></p>
<p id="status" role="status" aria-live="polite"></p>
${table}
${pager(page, total)}`,
  );
}
