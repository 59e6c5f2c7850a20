/**
 * Whether an `Accept` header asks for HTML rather than JSON: true only when `text/html` has a
 * strictly higher quality than `application/json` (wildcards count for both), so curl's `*\/*`
 * and API clients get JSON while browsers get pages.
 *
 * @example
 * prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*\/*;q=0.8'); // true
 * prefersHtml('*\/*'); // false
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept || accept === '*/*' || accept.startsWith('application/json')) return false;
  let html = -1;
  let json = -1;
  let wildHtml = 0;
  let wildJson = 0;
  for (const part of accept.split(',')) {
    const [rawType = '', ...params] = part.split(';');
    const type = rawType.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? parsed : 0;
      }
    }
    // The most specific match decides (RFC 9110, 12.5.1).
    if (type === 'text/html') html = Math.max(html, q);
    else if (type === 'application/json') json = Math.max(json, q);
    else if (type === 'text/*') wildHtml = Math.max(wildHtml, q);
    else if (type === 'application/*') wildJson = Math.max(wildJson, q);
    else if (type === '*/*') {
      wildHtml = Math.max(wildHtml, q);
      wildJson = Math.max(wildJson, q);
    }
  }
  const htmlQ = html >= 0 ? html : wildHtml;
  const jsonQ = json >= 0 ? json : wildJson;
  return htmlQ > 0 && htmlQ > jsonQ;
}
