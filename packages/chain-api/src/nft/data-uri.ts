import { UriError } from './errors.js';

/** A decoded `data:` URI. */
export interface DataUri {
  /** Lower-case media type without parameters (`application/json`); `text/plain` when absent. */
  mediaType: string;
  /** The payload as bytes. */
  bytes: Uint8Array;
}

const utf8 = new TextEncoder();

/**
 * Parses a `data:` URI: plain, percent-encoded and base64 payloads (RFC 2397), with the sloppiness
 * seen on chain tolerated: a raw JSON payload containing `#`, `%` or spaces, whitespace inside
 * base64, url-safe base64, `;utf8`/`;charset=...` parameters.
 *
 * @example
 * parseDataUri('data:application/json;base64,eyJuYW1lIjoiQSJ9').mediaType; // 'application/json'
 */
export function parseDataUri(uri: string): DataUri {
  if (!/^data:/i.test(uri)) throw new UriError('BAD_URI', 'not a data: URI');
  const comma = uri.indexOf(',');
  if (comma < 0) throw new UriError('BAD_URI', 'data: URI without a comma');
  const params = uri
    .slice(5, comma)
    .split(';')
    .map((part) => part.trim().toLowerCase());
  const first = params[0] ?? '';
  const mediaType = first.includes('/') ? first : 'text/plain';
  const isBase64 = params.slice(1).includes('base64');
  const payload = uri.slice(comma + 1);
  if (isBase64) {
    const text = percentDecodeToString(payload).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) {
      throw new UriError('BAD_URI', 'data: URI has an invalid base64 payload');
    }
    return { mediaType, bytes: new Uint8Array(Buffer.from(text, 'base64')) };
  }
  return { mediaType, bytes: percentDecode(payload) };
}

/**
 * The text of a `data:` payload meant to hold JSON: the raw payload when it already parses as JSON
 * (unencoded JSON may legitimately contain `%`), otherwise its percent-decoded form.
 */
export function dataUriText(uri: string): { mediaType: string; text: string } {
  const parsed = parseDataUri(uri);
  const decoded = new TextDecoder().decode(parsed.bytes);
  if (/^data:[^,]*;base64,/i.test(uri)) return { mediaType: parsed.mediaType, text: decoded };
  const raw = uri.slice(uri.indexOf(',') + 1);
  if (raw !== decoded && parsesAsJson(raw)) return { mediaType: parsed.mediaType, text: raw };
  return { mediaType: parsed.mediaType, text: decoded };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Percent-decodes into bytes; a `%` not followed by two hex digits is kept literally. Literal
 * runs are encoded whole (one TextEncoder call per character made a 1 MB payload take a second).
 */
function percentDecode(text: string): Uint8Array {
  if (!text.includes('%')) return utf8.encode(text);
  const parts: Uint8Array[] = [];
  const escapes = /(?:%[0-9a-fA-F]{2})+/g;
  let last = 0;
  for (let m = escapes.exec(text); m !== null; m = escapes.exec(text)) {
    if (m.index > last) parts.push(utf8.encode(text.slice(last, m.index)));
    const run = m[0];
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++)
      bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    parts.push(bytes);
    last = m.index + run.length;
  }
  if (last < text.length) parts.push(utf8.encode(text.slice(last)));
  return new Uint8Array(Buffer.concat(parts));
}

function percentDecodeToString(text: string): string {
  return text.includes('%') ? new TextDecoder().decode(percentDecode(text)) : text;
}
