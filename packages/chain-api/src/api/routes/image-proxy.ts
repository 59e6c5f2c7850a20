import type { FastifyInstance } from 'fastify';
import { type ImageLoader, ImageProxyError } from '../image-proxy/image-loader.js';
import type { ImageUrlSigner } from '../image-proxy/image-url-signer.js';

// Even if a browser were tricked into rendering the answer as a document, nothing runs or loads.
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
const maxTargetLength = 4096;

/**
 * `GET /images/v1/{mac}?url=...` (no key: the URL's signature is the permission; issued by
 * `POST /v1/console/image-urls`): the image at `url` through the SSRF-guarded loader, raster
 * formats as they are and SVG rasterised to PNG, with `ETag` and a day of caching.
 */
export function imageProxyRoute(opts: { signer: ImageUrlSigner; loader: ImageLoader }) {
  return async (app: FastifyInstance) => {
    app.get<{ Params: { mac: string }; Querystring: { url?: string } }>(
      '/images/v1/:mac',
      {
        config: { errorFormat: 'error' },
        // Documented in docs/console.md; the OpenAPI document stays the Sim-compatible surface.
        schema: {
          hide: true,
          tags: ['console'],
          summary: 'Signed image proxy (token logos, NFT images)',
          operationId: 'getProxiedImage',
          security: [],
        },
      },
      async (request, reply) => {
        const target = request.query.url;
        if (
          typeof target !== 'string' ||
          target.length > maxTargetLength ||
          !opts.signer.verify(request.params.mac, target)
        ) {
          return reply
            .code(403)
            .header('cache-control', 'no-store')
            .send({ error: 'not an image URL signed by this server' });
        }
        try {
          const image = await opts.loader.load(target);
          reply
            .header('etag', image.etag)
            .header('cache-control', 'public, max-age=86400')
            .header('content-security-policy', IMAGE_CSP)
            .header('cross-origin-resource-policy', 'same-origin');
          if (request.headers['if-none-match'] === image.etag) return reply.code(304).send();
          return reply.header('content-type', image.contentType).send(image.body);
        } catch (error) {
          if (!(error instanceof ImageProxyError)) throw error;
          return reply
            .code(error.status)
            .header('cache-control', 'no-store')
            .send({ error: error.message });
        }
      },
    );
  };
}
