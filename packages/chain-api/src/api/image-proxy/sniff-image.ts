/** Image formats the proxy passes on as they are (browsers decode them without running code). */
export type RasterType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/avif';

/**
 * What the bytes are, whatever the server claimed: a raster format by its magic number, `svg`
 * for an XML document whose root is `<svg`, else undefined (not an image we serve).
 *
 * @example
 * sniffImage(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])); // 'image/png'
 */
export function sniffImage(body: Buffer): RasterType | 'svg' | undefined {
  const ascii = (from: number, to: number) => body.subarray(from, to).toString('latin1');
  if (body.length >= 8 && body.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (body.length >= 3 && body[0] === 0xff && body[1] === 0xd8 && body[2] === 0xff)
    return 'image/jpeg';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(4, 8) === 'ftyp' && /^avi[fs]$/.test(ascii(8, 12))) return 'image/avif';
  // SVG: skip a BOM, the XML declaration, comments and a doctype, then expect the root element.
  const head = body
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const rest = head.replace(/^(\s*(<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>))*\s*/i, '');
  return /^<svg[\s>]/i.test(rest) ? 'svg' : undefined;
}
