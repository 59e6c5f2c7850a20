import { MetadataError, NftError, UriError } from './errors.js';
import type { Gateways } from './gateways.js';
import {
  type NormalizedMetadata,
  normalizeMetadata,
  parseMetadataJson,
} from './normalize-metadata.js';
import { resolveUri } from './resolve-uri.js';
import type { SafeFetcher } from './safe-fetch.js';

/** What loading a metadata document needs. */
export interface LoadMetadataDeps {
  fetcher: SafeFetcher;
  gateways: Gateways;
  signal?: AbortSignal;
  /** Largest document, inline (`data:`) or fetched (the fetcher's own cap). Default 2 MiB. */
  maxBytes?: number;
}

const defaultMaxBytes = 2 * 1024 * 1024;

const jsonTypes =
  /^(application\/(.+\+)?json|text\/(plain|json)|application\/octet-stream|binary\/octet-stream)$/;
const mediaTypes = /^(image|video|audio)\//;

/**
 * Loads and normalises the metadata document behind a token URI (already `{id}`-substituted):
 * inline `data:` documents are decoded (refused as `TOO_LARGE` beyond `maxBytes`, like fetched
 * ones), URLs go through the SSRF-guarded fetcher. A URI that
 * points straight at an image (some collections do that) yields metadata with only `imageUrl`.
 * Nothing is executed: the body is parsed as JSON or refused.
 *
 * @example
 * const meta = await loadMetadata('ipfs://Qm.../1.json', { fetcher, gateways });
 */
export async function loadMetadata(
  uri: string,
  deps: LoadMetadataDeps,
): Promise<NormalizedMetadata> {
  const maxBytes = deps.maxBytes ?? defaultMaxBytes;
  // Percent-encoding triples a byte at most: a longer URI cannot decode to an acceptable size.
  if (/^\s*data:/i.test(uri) && uri.length > maxBytes * 3 + 1024)
    throw tooLarge(uri.length, maxBytes);
  const source = resolveUri(uri, deps.gateways);
  if (source.kind === 'inline') {
    if (mediaTypes.test(source.mediaType)) return imageOnly(uri.trim());
    const size = Buffer.byteLength(source.text);
    if (size > maxBytes) throw tooLarge(size, maxBytes);
    if (!jsonTypes.test(source.mediaType)) {
      throw new UriError('UNSUPPORTED_URI', `data: URI of type ${source.mediaType}`);
    }
    return normalizeMetadata(parseMetadataJson(source.text), deps.gateways);
  }
  let media: string | undefined;
  const response = await deps.fetcher
    .fetch(source.url, {
      ...(deps.signal ? { signal: deps.signal } : {}),
      acceptContentType: (type) => {
        if (type && mediaTypes.test(type)) {
          media = type;
          return false;
        }
        // Servers label JSON every which way; only refuse what cannot be a JSON document.
        return type === undefined || !/^(font|model|multipart)\//.test(type);
      },
    })
    .catch((error: unknown) => {
      if (media) return undefined;
      throw error;
    });
  if (response === undefined) return imageOnly(source.url);
  const text = new TextDecoder().decode(response.body);
  if (response.contentType === 'text/html' && !/^\s*[{[]/.test(text)) {
    throw new MetadataError('INVALID_JSON', 'metadata URL answered with an HTML page', source.url);
  }
  return normalizeMetadata(parseMetadataJson(text), deps.gateways);
}

function tooLarge(size: number, maxBytes: number): NftError {
  return new NftError('TOO_LARGE', `inline document of ${size} bytes is over ${maxBytes} bytes`);
}

function imageOnly(url: string): NormalizedMetadata {
  return { name: null, description: null, imageUrl: url, attributes: [], externalUrl: null };
}
