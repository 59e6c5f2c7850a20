import { type AbiEvent, decodeEventLog, parseAbi, toEventSelector } from 'viem';
import { decodeCall, indexedEventsAbi } from '../decode/index.js';

/** A decoded call or event as the peer's transactions endpoint shows it. */
export interface PeerDecoded {
  name: string;
  inputs: { name: string; type: string; value: string | string[] }[];
}

/** Events commonly found among stored (not otherwise indexed) logs, beyond the indexed ones. */
const extraEvents = parseAbi([
  'event URI(string value, uint256 indexed id)',
  'event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)',
  'event Paused(address account)',
  'event Unpaused(address account)',
  'event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)',
  'event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)',
  'event Upgraded(address indexed implementation)',
  'event Initialized(uint64 version)',
]);

// topic0 -> candidates (Transfer of ERC20 and ERC721 share one; v2/v3 Swap differ).
const eventsByTopic = new Map<string, AbiEvent[]>();
for (const item of [...indexedEventsAbi, ...extraEvents] as readonly AbiEvent[]) {
  const topic = toEventSelector(item);
  eventsByTopic.set(topic, [...(eventsByTopic.get(topic) ?? []), item]);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function scalar(value: unknown): string {
  if (typeof value === 'string') return ADDRESS.test(value) ? value.toLowerCase() : value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  return JSON.stringify(value, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
}

/** Arrays as arrays of strings (the peer's shape), everything else as a string. */
function peerValue(type: string, value: unknown): string | string[] {
  if (type.endsWith(']') && Array.isArray(value)) return value.map(scalar);
  return scalar(value);
}

/**
 * Decodes calldata with the activity feed's selector registry; null when unknown.
 *
 * @example
 * decodeTransactionInput('0xa9059cbb…') // { name: 'transfer', inputs: [{ name: 'to', … }] }
 */
export function decodeTransactionInput(data: string): PeerDecoded | null {
  const call = decodeCall(data);
  if (!call) return null;
  return {
    name: call.name,
    inputs: call.inputs.map((input) => {
      let value: unknown = input.value;
      if (input.type.endsWith(']')) {
        try {
          value = JSON.parse(input.value);
        } catch {
          // Not JSON: keep the string.
        }
      }
      return { name: input.name, type: input.type, value: peerValue(input.type, value) };
    }),
  };
}

/**
 * Decodes a log against the indexer's events and a few common ones; null when no candidate fits.
 *
 * @example
 * decodeTransactionLog([TOPIC.transfer, from, to], '0x…01') // { name: 'Transfer', inputs: [...] }
 */
export function decodeTransactionLog(topics: readonly string[], data: string): PeerDecoded | null {
  const candidates = topics[0] ? eventsByTopic.get(topics[0]) : undefined;
  if (!candidates) return null;
  for (const event of candidates) {
    try {
      const decoded = decodeEventLog({
        abi: [event],
        topics: topics as [`0x${string}`, ...`0x${string}`[]],
        data: data as `0x${string}`,
        strict: true,
      });
      const args = (decoded.args ?? {}) as Record<string, unknown>;
      return {
        name: event.name,
        inputs: event.inputs.map((p, i) => {
          const name = p.name ?? `arg${i}`;
          const value = p.name ? args[p.name] : (args as unknown as unknown[])[i];
          return { name, type: p.type, value: peerValue(p.type, value) };
        }),
      };
    } catch {
      // Layout mismatch (e.g. ERC721 Transfer vs ERC20): try the next candidate.
    }
  }
  return null;
}
