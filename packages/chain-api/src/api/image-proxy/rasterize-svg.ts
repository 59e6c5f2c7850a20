import { Resvg } from '@resvg/resvg-js';

/** Any `href` (any namespace prefix) whose value is not a fragment or inline data. */
const externalHref = /(\s[\w.-]*:?href\s*=\s*)(["'])(?!#|data:)[^"']*\2/gi;

/**
 * Turns an untrusted SVG into a PNG with resvg (maintained, Rust, no script engine): the output
 * is pixels, so scripts, event handlers and foreign objects cannot survive. resvg reads images
 * named by absolute file paths from the local disk, so every reference that is not a fragment or
 * a `data:` URI is blanked first: a remote SVG must not show the server's own files.
 *
 * @example
 * const png = rasterizeSvg(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" .../>'), 512);
 */
export function rasterizeSvg(svg: Buffer, maxWidth: number): Buffer {
  const text = svg.toString('utf8').replace(externalHref, '$1$2#$2');
  // Small icons are drawn at 256 px at least (sharp on high-density screens), large ones capped.
  const natural = new Resvg(text, { logLevel: 'off' }).width;
  const width = Math.round(Math.min(maxWidth, Math.max(natural, 256)));
  const renderer = new Resvg(text, { logLevel: 'off', fitTo: { mode: 'width', value: width } });
  return Buffer.from(renderer.render().asPng());
}
