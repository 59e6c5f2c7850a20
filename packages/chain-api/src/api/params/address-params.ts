import { invalidParameter } from '../errors.js';
import { type ParamSpec, quote, splitList } from './param-spec.js';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const addressSchema = { type: 'string', pattern: '^0x[a-fA-F0-9]{40}$' };

/** Lower-cased `0x` address, or a 400 naming `name`. */
export function parseAddress(raw: string | undefined, name: string): `0x${string}` {
  if (raw === undefined || raw === '') throw invalidParameter(name, 'required');
  if (!addressPattern.test(raw)) {
    throw invalidParameter(name, `${quote(raw)} is not an address (0x followed by 40 hex digits)`);
  }
  return raw.toLowerCase() as `0x${string}`;
}

/** The wallet address path parameter. */
export const walletAddressParam: ParamSpec<`0x${string}`> = {
  schema: addressSchema,
  description: 'Wallet address (0x followed by 40 hex digits); answers use lower case.',
  required: true,
  parse: parseAddress,
};

/** Token path parameter of the single-token endpoint: an address or the literal `native`. */
export const tokenOrNativeParam: ParamSpec<`0x${string}` | 'native'> = {
  schema: { type: 'string', pattern: '^(0x[a-fA-F0-9]{40}|native)$' },
  description: 'Token contract address, or `native` for the chain native asset.',
  required: true,
  parse(raw, name) {
    if (raw?.toLowerCase() === 'native') return 'native';
    return parseAddress(raw, name);
  },
};

/** Optional comma-separated list of addresses (activity `token_address`). */
export function addressListParam(maxItems: number): ParamSpec<`0x${string}`[] | undefined> {
  return {
    schema: { type: 'string' },
    description: `One token contract address or a comma-separated list (at most ${maxItems}).`,
    parse(raw, name) {
      if (raw === undefined || raw === '') return undefined;
      const items = splitList(raw, name, maxItems).map((item) => parseAddress(item, name));
      return [...new Set(items)];
    },
  };
}
