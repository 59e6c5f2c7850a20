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
  // Fast path for what API clients send.
  if (!accept || accept === '*/*' || accept.startsWith('application/json')) return false;
  let html = 0;
  let json = 0;
  let htmlSpecific = -1;
  let jsonSpecific = -1;
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
    // The most specific match decides, as in RFC 9110 section 12.5.1.
    if (type === 'text/html') htmlSpecific = Math.max(htmlSpecific, q);
    else if (type === 'application/json') jsonSpecific = Math.max(jsonSpecific, q);
    else if (type === 'text/*') html = Math.max(html, q);
    else if (type === 'application/*') json = Math.max(json, q);
    else if (type === '*/*') {
      html = Math.max(html, q);
      json = Math.max(json, q);
    }
  }
  const htmlQ = htmlSpecific >= 0 ? htmlSpecific : html;
  const jsonQ = jsonSpecific >= 0 ? jsonSpecific : json;
  return htmlQ > 0 && htmlQ > jsonQ;
}
