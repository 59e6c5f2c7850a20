import { createHash } from 'node:crypto';
import { codePointLength, limitText } from '../text/limit-text.js';
import type { NormalizedMetadata } from './normalize-metadata.js';

/**
 * What one token may cost the store and an answer, whatever its document holds: the stored
 * fields of a document together (UTF-8 bytes), an inline `data:` image, any other image URL, and
 * a token URI kept verbatim (a longer `data:` URI is stored as its digest, see `storedTokenUri`).
 */
export const storedMetadataLimits = {
  documentBytes: 256 * 1024,
  inlineImageChars: 64 * 1024,
  imageUrlChars: 8 * 1024,
  uriChars: 8 * 1024,
} as const;

/** Stored fields of a document, within `storedMetadataLimits`, and why something was cut. */
export interface BoundedMetadata {
  meta: NormalizedMetadata;
  /** What was dropped or cut (stored as `nft_metadata.limited`); null when nothing was. */
  limited: string | null;
}

const bytes = (text: string | null): number => (text === null ? 0 : Buffer.byteLength(text));

/**
 * Caps a normalised document to what the store keeps: an inline image over 64 Ki characters or
 * another image URL over 8 Ki is dropped; then, while the fields exceed 256 KiB together,
 * attributes are dropped from the end and the description is cut. Each cut is named in `limited`.
 *
 * @example
 * boundMetadata({ ...meta, attributes: hugeList }).limited; // 'attributes: kept 120 of 500 (...)'
 */
export function boundMetadata(
  meta: NormalizedMetadata,
  maxBytes: number = storedMetadataLimits.documentBytes,
): BoundedMetadata {
  const reasons: string[] = [];
  let imageUrl = meta.imageUrl;
  if (imageUrl !== null) {
    const inline = /^data:/i.test(imageUrl);
    const limit = inline
      ? storedMetadataLimits.inlineImageChars
      : storedMetadataLimits.imageUrlChars;
    if (imageUrl.length > limit) {
      reasons.push(
        `image_url: ${inline ? 'inline data: image' : 'URL'} of ${imageUrl.length} characters dropped (limit ${limit})`,
      );
      imageUrl = null;
    }
  }
  const fixed = bytes(meta.name) + bytes(imageUrl) + bytes(meta.externalUrl);
  let budget = maxBytes - fixed;
  let description = meta.description;
  // Attributes go before the description (at most 20,000 code points after normalisation).
  const keepDescription = Math.min(bytes(description), 96 * 1024);
  let left = budget - keepDescription;
  const attributes = [];
  for (const attribute of meta.attributes) {
    const size = bytes(JSON.stringify(attribute)) + 1;
    if (size > left) break;
    left -= size;
    attributes.push(attribute);
  }
  if (attributes.length < meta.attributes.length) {
    reasons.push(
      `attributes: kept ${attributes.length} of ${meta.attributes.length} (document over ${maxBytes} bytes)`,
    );
  }
  budget -= bytes(JSON.stringify(attributes));
  if (description !== null && bytes(description) > budget) {
    description = cutToBytes(description, Math.max(0, budget));
    reasons.push(`description: cut to ${bytes(description)} bytes`);
  }
  return {
    meta: { ...meta, imageUrl, description, attributes },
    limited: reasons.length === 0 ? null : reasons.join('; '),
  };
}

/** The longest start of `text` within `maxBytes` UTF-8 bytes, cut on a grapheme boundary. */
function cutToBytes(text: string, maxBytes: number): string {
  const head = new TextDecoder().decode(Buffer.from(text).subarray(0, maxBytes));
  // A character split by the byte cut decodes as U+FFFD: drop it, then cut whole graphemes.
  const whole = head.endsWith('\uFFFD') && !text.startsWith(head) ? head.slice(0, -1) : head;
  return limitText(text, codePointLength(whole));
}

/**
 * The token URI as stored: verbatim up to 8 Ki characters; a longer `data:` URI (the document
 * itself, sometimes megabytes) as `data:<media type>;sha256=<digest>,` so a re-check can still
 * tell whether it changed. The API never echoes a digest (see `servedTokenUri`).
 *
 * @example
 * storedTokenUri('ipfs://Qm…/1'); // unchanged
 */
export function storedTokenUri(uri: string): string {
  if (uri.length <= storedMetadataLimits.uriChars || !/^data:/i.test(uri)) return uri;
  const comma = uri.indexOf(',');
  const head = uri.slice(5, comma < 0 ? 5 : Math.min(comma, 5 + 200)).split(';')[0] ?? '';
  const digest = createHash('sha256').update(uri).digest('hex');
  return `data:${head.toLowerCase()};sha256=${digest},`;
}

/**
 * The token URI an answer shows: none for a `data:` URI over 8 Ki characters or a stored digest
 * (its parsed fields are what the answer serves), else the URI.
 *
 * @example
 * servedTokenUri('data:application/json;sha256=ab…,'); // null
 */
export function servedTokenUri(uri: string | null): string | null {
  if (uri === null || !/^data:/i.test(uri)) return uri;
  if (uri.length > storedMetadataLimits.uriChars || /;sha256=[0-9a-f]{64},$/.test(uri)) return null;
  return uri;
}
