import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from '../../net/ip-policy.js';

/** Resolves a host name to all its addresses (the system resolver by default). */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export interface DeliveryUrlPolicyOptions {
  /** `host` or `host:port` entries let through whatever they resolve to (WEBHOOK_ALLOW_HOSTS). */
  allowHosts?: readonly string[];
  resolve?: HostResolver;
  /** Longest wait for the resolver; a name that does not answer in time is let through. */
  resolveTimeoutMs?: number;
}

/** Checks a delivery URL; resolves to why it is refused, or undefined when it may be used. */
export type DeliveryUrlPolicy = (url: string) => Promise<string | undefined>;

export const MAX_URL_LENGTH = 2048;

/**
 * The SSRF policy of webhook delivery URLs at create and update, the NFT metadata fetcher's
 * address policy (`classifyAddress`): http(s) only, no credentials; an IP literal or a name resolving to a
 * loopback, private, link-local (cloud metadata), CGNAT, unspecified, multicast, reserved,
 * unique-local or IPv4-mapped/embedded address is refused unless WEBHOOK_ALLOW_HOSTS names the
 * host. A name that does not resolve now is accepted: DNS changes, so the delivery worker checks
 * the address again when it connects.
 *
 * @example
 * const check = createDeliveryUrlPolicy({ allowHosts: ['127.0.0.1:8080'] });
 * await check('http://169.254.169.254/'); // 'host 169.254.169.254 is a link-local address ...'
 */
export function createDeliveryUrlPolicy(opts: DeliveryUrlPolicyOptions = {}): DeliveryUrlPolicy {
  const allowHosts = new Set((opts.allowHosts ?? []).map((host) => host.toLowerCase()));
  const resolve: HostResolver = opts.resolve ?? ((host) => dnsLookup(host, { all: true }));
  const timeoutMs = opts.resolveTimeoutMs ?? 3_000;
  const refusal = (host: string, address: string, cls: string) =>
    `host ${host}${address === host ? '' : ` resolves to ${address}, which`} is a${/^(?:[aeio]|un[^i])/.test(cls) ? 'n' : ''} ${cls} address; deliveries go to public addresses only (WEBHOOK_ALLOW_HOSTS lets a host through)`;

  return async (input) => {
    if (input.length > MAX_URL_LENGTH) return `longer than ${MAX_URL_LENGTH} characters`;
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return 'not an absolute URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return `scheme ${url.protocol.slice(0, -1)} is not allowed; use http or https`;
    }
    if (url.hostname === '') return 'no host';
    // As for NFT metadata: a URL is shown back by GET, so it is no place for a password.
    if (url.username !== '' || url.password !== '') return 'credentials in URLs are not allowed';
    if (allowHosts.has(url.host) || allowHosts.has(url.hostname)) return undefined;
    const bare = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(bare) !== 0) {
      const cls = classifyAddress(bare);
      return cls === null ? undefined : refusal(url.hostname, url.hostname, cls);
    }
    const addresses = await resolveWithin(resolve, bare, timeoutMs);
    if (addresses === undefined) {
      // RFC 6761: localhost names are loopback whatever a resolver says (or fails to say).
      const local = /(^|\.)localhost\.?$/.test(bare);
      return local ? refusal(bare, bare, 'loopback') : undefined;
    }
    for (const { address } of addresses) {
      const cls = classifyAddress(address);
      if (cls !== null) return refusal(bare, address, cls);
    }
    return undefined;
  };
}

async function resolveWithin(
  resolve: HostResolver,
  host: string,
  timeoutMs: number,
): Promise<LookupAddress[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), timeoutMs);
  });
  try {
    const found = await Promise.race([resolve(host).catch(() => undefined), timeout]);
    return found && found.length > 0 ? found : undefined;
  } finally {
    clearTimeout(timer);
  }
}
