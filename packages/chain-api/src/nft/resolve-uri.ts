import { limitText } from '../text/limit-text.js';
import { dataUriText } from './data-uri.js';
import { UriError } from './errors.js';
import type { Gateways } from './gateways.js';
import { isIpfsCid } from './ipfs-cid.js';

/** Where a metadata document comes from once its URI is resolved. */
export type MetadataSource =
  /** Fetch this http(s) URL (gateways already applied) with the safe fetcher. */
  | { kind: 'url'; url: string }
  /** The document is inline (`data:` URI), already decoded to text. */
  | { kind: 'inline'; mediaType: string; text: string };

const maxUriLength = 2_000_000;

/**
 * Turns a token's metadata URI into something loadable: `https://`/`http://` as is (public IPFS
 * gateway URLs rewritten to the configured gateway), `ipfs://`, `ipns://`, bare CIDs and `/ipfs/`
 * paths through the IPFS gateway, `ar://` through the Arweave gateway, and `data:` URIs decoded
 * inline (plain, percent-encoded, base64). Anything else (`javascript:`, `file:`, relative paths)
 * is a `UriError`.
 *
 * @example
 * resolveUri('ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/1.json', gateways);
 * // { kind: 'url', url: 'https://ipfs.io/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/1.json' }
 */
export function resolveUri(uri: string, gateways: Gateways): MetadataSource {
  const trimmed = uri.trim();
  if (trimmed === '') throw new UriError('BAD_URI', 'empty URI');
  if (trimmed.length > maxUriLength)
    throw new UriError('TOO_LARGE', `URI of ${trimmed.length} characters is longer than 2 MB`);
  if (/^data:/i.test(trimmed)) return { kind: 'inline', ...dataUriText(trimmed) };
  const url = toHttpUrl(trimmed, gateways);
  if (url === undefined)
    throw new UriError('UNSUPPORTED_URI', 'unsupported URI', limitText(trimmed, 200));
  return { kind: 'url', url };
}

/**
 * Maps any supported URI form to an http(s) URL, or returns `undefined` when it has none. `data:`
 * URIs are returned unchanged (an inline image is a valid `image_url`). Used for `image_url`.
 *
 * @example
 * toHttpUrl('ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U', gateways);
 * // 'https://arweave.net/bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U'
 */
export function toHttpUrl(uri: string, gateways: Gateways): string | undefined {
  const value = uri.trim();
  if (value === '') return undefined;
  if (/^data:/i.test(value)) return value;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'ipfs') return ipfsUrl(stripScheme(value).replace(/^ipfs\//i, ''), gateways);
  if (scheme === 'ipns') return `${gateways.ipfsGateway}/ipns/${stripScheme(value)}`;
  if (scheme === 'ar') {
    const rest = stripScheme(value);
    return rest === '' ? undefined : `${gateways.arweaveGateway}/${rest}`;
  }
  if (scheme === 'http' || scheme === 'https') return rewriteGatewayUrl(value, gateways);
  if (scheme !== undefined) return undefined;
  // No scheme: a bare CID (optionally with a path) or an /ipfs/<cid> path.
  const path = value.replace(/^\/+/, '');
  if (/^ipfs\//i.test(path)) return ipfsUrl(path.slice(5), gateways);
  if (/^ipns\//i.test(path)) return `${gateways.ipfsGateway}/${path}`;
  const first = path.split(/[/?#]/, 1)[0] ?? '';
  return isIpfsCid(first) ? ipfsUrl(path, gateways) : undefined;
}

function stripScheme(uri: string): string {
  return uri.replace(/^[a-z][a-z0-9+.-]*:(\/\/)?/i, '');
}

function ipfsUrl(cidAndPath: string, gateways: Gateways): string | undefined {
  const cleaned = cidAndPath.replace(/^\/+/, '');
  const cid = cleaned.split(/[/?#]/, 1)[0] ?? '';
  if (cid === '') return undefined;
  return `${gateways.ipfsGateway}/ipfs/${cleaned}`;
}

/**
 * Rewrites a URL on some public IPFS gateway (`https://gw/ipfs/<cid>/...` or a subdomain gateway
 * `https://<cid>.ipfs.gw/...`) to the configured gateway: public gateways rate-limit hard, and
 * the operator picked theirs for a reason. Other URLs are returned as they are.
 */
function rewriteGatewayUrl(value: string, gateways: Gateways): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const configured = new URL(gateways.ipfsGateway);
  if (url.host === configured.host) return url.href;
  const pathMatch = /^\/ipfs\/([^/?#]+)(.*)$/.exec(url.pathname);
  if (pathMatch?.[1] && isIpfsCid(pathMatch[1])) {
    return `${gateways.ipfsGateway}/ipfs/${pathMatch[1]}${pathMatch[2] ?? ''}${url.search}`;
  }
  const subdomain = /^([^.]+)\.ipfs\./.exec(url.hostname);
  if (subdomain?.[1] && isIpfsCid(subdomain[1])) {
    return `${gateways.ipfsGateway}/ipfs/${subdomain[1]}${url.pathname === '/' ? '' : url.pathname}${url.search}`;
  }
  return url.href;
}

/**
 * ERC1155 `{id}` substitution: every `{id}` becomes the token id as 64 lower-case hex digits,
 * zero-padded, without `0x` (EIP-1155 metadata rules).
 *
 * @example
 * substituteTokenId('https://x.example/{id}.json', 10n);
 * // 'https://x.example/000000000000000000000000000000000000000000000000000000000000000a.json'
 */
export function substituteTokenId(uri: string, tokenId: bigint): string {
  if (!uri.includes('{id}')) return uri;
  return uri.replaceAll('{id}', tokenId.toString(16).padStart(64, '0'));
}
