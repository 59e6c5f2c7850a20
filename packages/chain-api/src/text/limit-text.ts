/**
 * Text limits for strings read from contracts and metadata documents. Limits count Unicode code
 * points (not UTF-16 units), a cut never splits a surrogate pair and, where possible, never a
 * grapheme cluster (an emoji ZWJ sequence, a letter and its combining marks); lone surrogates are
 * replaced by U+FFFD because PostgreSQL rejects them in `jsonb` and they are not text.
 */

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Grapheme segmenter, created on first use (only over-long strings need it). */
let segmenter: Intl.Segmenter | undefined;

/**
 * The string with every unpaired UTF-16 surrogate replaced by U+FFFD (what
 * `String.prototype.toWellFormed` does, which the ES2023 lib does not declare).
 *
 * @example
 * wellFormed('a\uD83D'); // 'a\uFFFD'
 */
export function wellFormed(text: string): string {
  return text.replace(loneSurrogate, '\uFFFD');
}

/** Number of code points of a well-formed string (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * Makes `text` well-formed and cuts it to at most `maxCodePoints` code points. The cut falls on
 * the last grapheme-cluster boundary within the limit, so `é` written as `e` + U+0301 and a ZWJ
 * emoji family stay whole or go whole; a single cluster longer than the limit (a "zalgo" pile of
 * marks) is cut at the code point limit instead.
 *
 * @example
 * limitText('ab😀c', 3); // 'ab😀'
 * limitText('e\u0301e\u0301', 3); // 'e\u0301'
 */
export function limitText(text: string, maxCodePoints: number): string {
  const clean = wellFormed(text);
  // Fast path: UTF-16 length bounds the code point count from above.
  if (clean.length <= maxCodePoints) return clean;
  if (codePointLength(clean) <= maxCodePoints) return clean;
  const hardEnd = unitIndexOfCodePoint(clean, maxCodePoints);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  // Only the clusters around the cut matter: segment a window around it (segmenting the whole
  // prefix cost ~0.6 s for a 20,000-code-point description). The window starts on a code point.
  let start = Math.max(0, hardEnd - 1024);
  if (start > 0 && isLowSurrogate(clean.charCodeAt(start))) start--;
  let end = 0;
  for (const { index, segment } of segmenter.segment(clean.slice(start, hardEnd + 64))) {
    const next = start + index + segment.length;
    if (next > hardEnd) break;
    end = next;
  }
  return clean.slice(0, end > 0 ? end : hardEnd);
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** UTF-16 index where code point number `count` starts (or the string's length). */
function unitIndexOfCodePoint(text: string, count: number): number {
  let i = 0;
  for (let n = 0; n < count && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
  }
  return i;
}
