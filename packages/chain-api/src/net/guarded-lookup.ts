import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressClass, classifyAddress } from './ip-policy.js';

/** Resolves a host name to its addresses (the system resolver by default; tests inject their own). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Builds the error a refused or unresolvable host fails with (each caller keeps its own error type). */
export type LookupRefusal = (
  code: 'BLOCKED_ADDRESS' | 'NETWORK',
  message: string,
  detail: string,
) => Error;

/**
 * A socket `lookup` that resolves through `resolve` and refuses the connection when ANY address is
 * non-public (an attacker controls which one gets connected to), unless `allowPrivate`. Handed to
 * the socket itself, so the checked address is the one connected to (no DNS rebinding window).
 *
 * @example
 * http.request(url, { lookup: guardedLookup(resolve, false, (code, m) => new Error(m)) });
 */
export function guardedLookup(
  resolve: Resolver,
  allowPrivate: boolean,
  refuse: LookupRefusal,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((found) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = wanted ? found.filter((a) => a.family === wanted) : found;
        if (addresses.length === 0) throw refuse('NETWORK', 'host name has no address', hostname);
        if (!allowPrivate) {
          for (const { address } of addresses) {
            const cls = classifyAddress(address);
            if (cls !== null) {
              throw refuse(
                'BLOCKED_ADDRESS',
                `refused ${cls} address`,
                `${hostname} -> ${address}`,
              );
            }
          }
        }
        if (options.all) {
          callback(null, addresses);
        } else {
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        }
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ''));
  };
}

/**
 * IP-literal hosts never reach a `lookup`, so they are checked before connecting: the class of a
 * non-public literal (the URL parser already canonicalised decimal/octal/hex IPv4 spellings such
 * as `http://2130706433/`), null for a public one or a host name.
 *
 * @example
 * literalAddressClass(new URL('http://[::1]/').hostname); // 'loopback'
 */
export function literalAddressClass(hostname: string): AddressClass | null {
  const host = hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? null : classifyAddress(host);
}
