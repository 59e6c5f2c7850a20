const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values.
 *
 * @example
 * escapeHtml('<script>alert(1)</script>'); // '&lt;script&gt;alert(1)&lt;/script&gt;'
 */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** Tagged template that escapes every interpolation unless it is already `SafeHtml`. */
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
