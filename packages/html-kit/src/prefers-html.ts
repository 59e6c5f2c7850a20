import Negotiator from 'negotiator';

// Listed first, JSON wins the ties the header itself leaves open (one `*/*`, or no Accept).
const OFFERED = ['application/json', 'text/html'];

/**
 * Whether an `Accept` header asks for HTML rather than JSON: true when `text/html` ranks above
 * `application/json` by quality, then specificity (RFC 9110, 12.5.1), then order in the header,
 * so curl's `*\/*` and API clients get JSON while browsers get pages.
 *
 * @example
 * prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*\/*;q=0.8'); // true
 * prefersHtml('*\/*'); // false
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return new Negotiator({ headers: { accept } }).mediaType(OFFERED) === 'text/html';
}
