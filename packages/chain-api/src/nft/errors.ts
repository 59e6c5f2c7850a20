import { BaseError } from '../errors/index.js';
import { limitText, wellFormed } from '../text/limit-text.js';
/** Machine-readable reason of an NFT metadata failure; stored in `nft_metadata.last_error` as `code: message`. */
export type NftErrorCode =
  | 'BAD_URI'
  | 'UNSUPPORTED_URI'
  | 'BLOCKED_ADDRESS'
  | 'TOO_MANY_REDIRECTS'
  | 'TOO_LARGE'
  | 'TIMEOUT'
  | 'HTTP_STATUS'
  | 'BAD_CONTENT_TYPE'
  | 'NETWORK'
  | 'INVALID_JSON'
  | 'INVALID_METADATA'
  | 'URI_CALL_FAILED'
  | 'RPC_UNAVAILABLE';

/**
 * Base class of every error of the NFT worker: a short message, a code, and optional details
 * (never secrets; URLs are the public metadata URLs).
 */
export class NftError extends BaseError<NftErrorCode> {
  override name = 'NftError';

  constructor(code: NftErrorCode, message: string, details?: string) {
    super(message, { code, details, message: details ? `${message}: ${details}` : message });
  }
}

/** The fetcher refused or failed to load a URL (SSRF guard, size, time, redirects, status). */
export class SafeFetchError extends NftError {
  override name = 'SafeFetchError';
}

/** A metadata URI could not be turned into something fetchable. */
export class UriError extends NftError {
  override name = 'UriError';
}

/** The metadata document was not usable JSON. */
export class MetadataError extends NftError {
  override name = 'MetadataError';
}

/** Renders any thrown value as the `last_error` text stored for a token (bounded length). */
export function describeError(error: unknown): string {
  let text: string;
  if (error instanceof NftError) text = `${error.code}: ${error.message}`;
  else if (error && typeof error === 'object' && 'shortMessage' in error)
    text = String(error.shortMessage);
  else if (error instanceof Error) text = error.message.split('\n')[0] ?? error.name;
  else text = String(error);
  const cut = limitText(text, 497);
  return cut.length < wellFormed(text).length ? `${cut}...` : cut;
}
