import escapeHtmlText from 'escape-html';

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values
 * (`&`, `<`, `>`, `"`, `'`).
 *
 * @example
 * escapeHtml('<script>alert(1)</script>'); // '&lt;script&gt;alert(1)&lt;/script&gt;'
 */
export function escapeHtml(value: string | number): string {
  return escapeHtmlText(String(value));
}
