/** Where content-addressed URIs are fetched from. */
export interface Gateways {
  /** IPFS HTTP gateway origin (path gateway): `<gateway>/ipfs/<cid>/<path>` is fetched. Default `https://ipfs.io`. */
  ipfsGateway: string;
  /** Arweave gateway origin: `<gateway>/<tx id>/<path>`. Default `https://arweave.net`. */
  arweaveGateway: string;
}

/** The public gateways used when none are configured. */
export const defaultGateways: Gateways = {
  ipfsGateway: 'https://ipfs.io',
  arweaveGateway: 'https://arweave.net',
};

/**
 * Normalises configured gateways: trailing slashes and a trailing `/ipfs` segment are dropped, so
 * `https://gw.example/ipfs/` and `https://gw.example` mean the same thing.
 *
 * @example
 * normalizeGateways({ ipfsGateway: 'https://dweb.example/ipfs/' }).ipfsGateway; // 'https://dweb.example'
 */
export function normalizeGateways(input: Partial<Gateways> = {}): Gateways {
  const ipfs = (input.ipfsGateway ?? defaultGateways.ipfsGateway).replace(/\/+$/, '');
  const ar = (input.arweaveGateway ?? defaultGateways.arweaveGateway).replace(/\/+$/, '');
  for (const url of [ipfs, ar]) {
    if (!/^https?:\/\/[^/]+/i.test(url))
      throw new TypeError(`gateway must be an http(s) URL: ${url}`);
  }
  return { ipfsGateway: ipfs.replace(/\/ipfs$/i, ''), arweaveGateway: ar };
}
