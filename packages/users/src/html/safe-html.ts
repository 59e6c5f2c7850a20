import { escapeHtml } from '@sluice/html-kit';

/** Markup the `html` template inserts as it is: built by `html` (so escaped) or trusted. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = string | number | SafeHtml | readonly SafeHtml[] | undefined;

/**
 * Builds HTML with automatic escaping of interpolated values.
 *
 * @example
 * html`<td>${user.name}</td>`; // user text is escaped
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value instanceof SafeHtml) out += value.value;
    else if (Array.isArray(value)) out += value.map((v: SafeHtml) => v.value).join('');
    else if (value !== undefined) out += escapeHtml(value as string | number);
    out += strings[i + 1] ?? '';
  }
  return new SafeHtml(out);
}
