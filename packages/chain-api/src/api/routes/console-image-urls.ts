import type { FastifyInstance } from 'fastify';
import { invalidParameter } from '../errors.js';
import type { ImageUrlSigner } from '../image-proxy/image-url-signer.js';

const maxUrls = 200;
const maxUrlLength = 4096;
const proxied = /^(https?|ipfs|ipns|ar):/i;
// Inline raster and SVG images are safe in <img> (no script runs there): returned as they are.
const inlineImage = /^data:image\/(png|jpeg|gif|webp|avif|svg\+xml)[;,]/i;

/**
 * `POST /v1/console/image-urls` (keyed): `{urls: [...]}` → `{urls: {<url>: <proxy URL> | null}}`.
 * Only key holders get signed URLs, so the proxy is not open to the world; null for what the
 * proxy does not load (unsupported schemes).
 */
export function consoleImageUrlsRoute(opts: { signer: ImageUrlSigner }) {
  return async (app: FastifyInstance) => {
    app.post<{ Body: unknown }>(
      '/image-urls',
      {
        config: { errorFormat: 'error' },
        bodyLimit: 1024 * 1024,
        // Documented in docs/console.md; the OpenAPI document stays the Sim-compatible surface.
        schema: {
          hide: true,
          tags: ['console'],
          summary: 'Sign image URLs for the image proxy',
          operationId: 'signImageUrls',
          body: {
            type: 'object',
            required: ['urls'],
            properties: { urls: { type: 'array', items: { type: 'string' }, maxItems: maxUrls } },
          },
        },
      },
      async (request) => {
        const urls = (request.body as { urls?: unknown } | null)?.urls;
        if (
          !Array.isArray(urls) ||
          urls.length > maxUrls ||
          urls.some((u) => typeof u !== 'string')
        ) {
          throw invalidParameter('urls', `an array of at most ${maxUrls} strings`);
        }
        const out: [string, string | null][] = [];
        for (const url of urls as string[]) {
          if (url.length > maxUrlLength) out.push([url, null]);
          else if (inlineImage.test(url)) out.push([url, url]);
          else out.push([url, proxied.test(url.trim()) ? opts.signer.sign(url) : null]);
        }
        // fromEntries: a URL such as "__proto__" stays an ordinary key.
        return { urls: Object.fromEntries(out) };
      },
    );
  };
}
