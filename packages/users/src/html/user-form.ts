import { MAX_TEXT_LENGTH } from '../user-input.js';
import { html, type SafeHtml } from './safe-html.js';

export interface UserFormOptions {
  /** Where app.js sends the JSON body, and the plain form's action. */
  action: string;
  method: 'POST' | 'PUT';
  submitLabel: string;
  values: { id?: string; name?: string; pro?: string };
  /** The id cannot change on edit. */
  idReadOnly: boolean;
}

function field(
  name: 'name' | 'pro',
  label: string,
  value: string | undefined,
  autocomplete: string,
): SafeHtml {
  return html`<div class="field">
<label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="text" required maxlength="${MAX_TEXT_LENGTH}" autocomplete="${autocomplete}" value="${value ?? ''}" aria-describedby="${name}-error">
<p class="field-error" id="${name}-error" hidden></p>
</div>`;
}

/**
 * The add/edit form. Browsers with JavaScript submit it as JSON (app.js) so PUT works and errors
 * appear next to their fields; without JavaScript the add form still posts url-encoded.
 */
export function userForm(options: UserFormOptions): SafeHtml {
  const { values } = options;
  const idInput = options.idReadOnly
    ? html`<input id="id" name="id" type="text" inputmode="numeric" readonly aria-readonly="true" value="${values.id ?? ''}" aria-describedby="id-hint id-error">
<p class="field-hint" id="id-hint">The id cannot be changed.</p>`
    : html`<input id="id" name="id" type="number" required min="1" step="1" value="${values.id ?? ''}" aria-describedby="id-error">`;
  return html`<form class="user-form" method="post" action="${options.action}" data-json-method="${options.method}" data-json-action="${options.action}" novalidate>
<div role="alert" class="form-errors" id="form-errors" tabindex="-1" hidden></div>
<div class="field">
<label for="id">Id</label>
${idInput}
<p class="field-error" id="id-error" hidden></p>
</div>
${field('name', 'Name', values.name, 'name')}
${field('pro', 'Profession', values.pro, 'organization-title')}
<div class="form-actions">
<button type="submit">${options.submitLabel}</button>
<a href="/users">Cancel</a>
</div>
</form>`;
}
