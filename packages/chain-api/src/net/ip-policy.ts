import { BlockList, isIP } from 'node:net';

/** Why an address is not public. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'unique-local'
  | 'ipv4-mapped'
  | 'ipv4-embedded'
  | 'invalid';

type Range = [AddressClass, string, number];

const ipv4Ranges: Range[] = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['cgnat', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['reserved', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['reserved', '192.88.99.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
];

const ipv6Ranges: Range[] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['ipv4-mapped', '::ffff:0:0', 96],
  ['ipv4-embedded', '::', 96], // deprecated IPv4-compatible addresses
  ['ipv4-embedded', '64:ff9b::', 96], // NAT64: would reach any IPv4 address, private ones included
  ['ipv4-embedded', '64:ff9b:1::', 48],
  ['reserved', '100::', 64],
  ['reserved', '2001::', 23], // IETF protocol assignments, Teredo included
  ['documentation', '2001:db8::', 32],
  ['ipv4-embedded', '2002::', 16], // 6to4
  ['unique-local', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  ['reserved', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
];

function buildLists(ranges: Range[], family: 'ipv4' | 'ipv6'): Array<[AddressClass, BlockList]> {
  return ranges.map(([cls, net, prefix]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return [cls, list];
  });
}

const v4Lists = buildLists(ipv4Ranges, 'ipv4');
const v6Lists = buildLists(ipv6Ranges, 'ipv6');

/**
 * Classifies an IP address: `null` for a public unicast address, otherwise why it must not be
 * contacted from a server (loopback, RFC 1918, link-local, CGNAT, multicast, IPv6 ULA, IPv4-mapped
 * and other IPv4-embedding IPv6 forms, documentation and reserved blocks). Not an IP: `'invalid'`.
 *
 * @example
 * classifyAddress('169.254.169.254'); // 'link-local' (cloud metadata endpoint)
 * classifyAddress('::ffff:127.0.0.1'); // 'ipv4-mapped'
 * classifyAddress('93.184.216.34'); // null
 */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) {
    for (const [cls, list] of v4Lists) if (list.check(bare, 'ipv4')) return cls;
    return null;
  }
  if (family === 6) {
    for (const [cls, list] of v6Lists) if (list.check(bare, 'ipv6')) return cls;
    return null;
  }
  return 'invalid';
}
