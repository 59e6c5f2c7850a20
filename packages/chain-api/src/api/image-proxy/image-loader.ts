import { createHash } from 'node:crypto';
import { SafeFetchError } from '../../nft/errors.js';
import type { Gateways } from '../../nft/gateways.js';
import { toHttpUrl } from '../../nft/resolve-uri.js';
import { createSafeFetcher, type Resolver } from '../../nft/safe-fetch.js';
import { rasterizeSvg } from './rasterize-svg.js';
import { sniffImage } from './sniff-image.js';

/** An image ready to send: raster bytes (an SVG comes out as PNG) and its validator. */
export interface LoadedImage {
  contentType: string;
  body: Buffer;
  etag: string;
}

/** Why an image is not served, with the HTTP status the proxy answers. */
export class ImageProxyError extends Error {
  override name = 'ImageProxyError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ImageLoaderOptions {
  gateways: Gateways;
  /** Hosts exempt from the private-address check (the devnet's metadata server). */
  allowHosts?: readonly string[];
  allowPrivateHosts?: boolean;
  /** Largest image accepted, bytes. Default 5 MiB. */
  maxBytes?: number;
  timeoutMs?: number;
  /** Width SVGs are drawn at, at most. Default 512. */
  svgMaxWidth?: number;
  /** Bytes of processed images kept in memory. Default 32 MiB. */
  cacheBytes?: number;
  resolve?: Resolver;
}

export interface ImageLoader {
  load(target: string): Promise<LoadedImage>;
  close(): void;
}

const accepted = (type: string | undefined) =>
  type === undefined ||
  type.startsWith('image/') ||
  type === 'application/octet-stream' ||
  type === 'application/xml' ||
  type === 'text/xml' ||
  type === 'text/plain';

/**
 * Loads token logos and NFT images for the image proxy through the NFT worker's SSRF-guarded
 * fetcher (same address policy, redirects re-checked at every hop, size cap while streaming,
 * one deadline), `ipfs://`/`ar://` through the configured gateways. The bytes must BE an image
 * (sniffed, not trusted from Content-Type); SVGs are rasterised. Results are cached by URL
 * (bounded bytes) and concurrent loads of one URL share a fetch.
 *
 * @example
 * const loader = createImageLoader({ gateways: normalizeGateways() });
 * const { contentType, body, etag } = await loader.load('ipfs://Qm.../1.png');
 */
export function createImageLoader(options: ImageLoaderOptions): ImageLoader {
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const fetcher = createSafeFetcher({
    maxBytes,
    timeoutMs: options.timeoutMs ?? 10_000,
    userAgent: 'sluice-image-proxy/1.0',
    ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
    ...(options.allowPrivateHosts ? { allowPrivateHosts: true } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const cacheLimit = options.cacheBytes ?? 32 * 1024 * 1024;
  const cache = new Map<string, LoadedImage>();
  let cached = 0;
  const inFlight = new Map<string, Promise<LoadedImage>>();

  const remember = (target: string, image: LoadedImage) => {
    if (image.body.length > cacheLimit / 4) return;
    cache.set(target, image);
    cached += image.body.length;
    // Oldest first (Map order); a hit moves an entry to the end.
    for (const [url, old] of cache) {
      if (cached <= cacheLimit) break;
      cache.delete(url);
      cached -= old.body.length;
    }
  };

  async function fetchImage(target: string): Promise<LoadedImage> {
    const url = toHttpUrl(target, options.gateways);
    if (url === undefined || url.startsWith('data:')) {
      throw new ImageProxyError(400, 'not an http(s), ipfs or ar URL');
    }
    let response: Awaited<ReturnType<typeof fetcher.fetch>>;
    try {
      response = await fetcher.fetch(url, {
        accept: 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8',
        acceptContentType: accepted,
      });
    } catch (error) {
      throw fetchFailure(error);
    }
    const kind = sniffImage(response.body);
    if (kind === undefined) throw new ImageProxyError(502, 'the target is not an image');
    let body = response.body;
    let contentType: string = kind;
    if (kind === 'svg') {
      try {
        body = rasterizeSvg(response.body, options.svgMaxWidth ?? 512);
      } catch {
        throw new ImageProxyError(502, 'the target is not a valid SVG image');
      }
      contentType = 'image/png';
    }
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    return { contentType, body, etag };
  }

  return {
    async load(target) {
      const hit = cache.get(target);
      if (hit) {
        cache.delete(target);
        cache.set(target, hit);
        return hit;
      }
      let pending = inFlight.get(target);
      if (!pending) {
        pending = fetchImage(target).finally(() => inFlight.delete(target));
        inFlight.set(target, pending);
      }
      const image = await pending;
      if (!cache.has(target)) remember(target, image);
      return image;
    },
    close() {
      fetcher.close();
    },
  };
}

function fetchFailure(error: unknown): ImageProxyError {
  if (!(error instanceof SafeFetchError)) return new ImageProxyError(502, 'image fetch failed');
  switch (error.code) {
    case 'BLOCKED_ADDRESS':
      return new ImageProxyError(403, `refused: ${error.message.split(':')[0]}`);
    case 'TOO_LARGE':
      return new ImageProxyError(502, 'the image is larger than the proxy accepts');
    case 'BAD_CONTENT_TYPE':
      return new ImageProxyError(502, 'the target is not an image');
    case 'TIMEOUT':
      return new ImageProxyError(504, 'the image host did not answer in time');
    case 'TOO_MANY_REDIRECTS':
      return new ImageProxyError(502, 'too many redirects');
    case 'BAD_URI':
    case 'UNSUPPORTED_URI':
      return new ImageProxyError(400, 'not an http(s), ipfs or ar URL');
    default:
      return new ImageProxyError(502, `image fetch failed (${error.code.toLowerCase()})`);
  }
}
