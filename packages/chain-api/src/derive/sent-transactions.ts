import { secp256k1 } from '@noble/curves/secp256k1';
import type { Hex } from 'viem';
import { hashAuthorization, hexToBigInt, publicKeyToAddress } from 'viem/utils';
import type { RpcAuthorization, RpcTx } from '../rpc/rpc-types.js';
import type { ActivityRow, ActivityType, AssetType } from './derived-batch.js';

/**
 * One EIP-7702 authorization as the activity feed shows it (`authorization_list` of the sender's
 * row): `address` is the code the `authority` delegates to, `0x000…0` clears its delegation.
 * Listed as signed: the chain skips an authorization whose chain id or nonce does not match.
 */
export interface AuthorizationEntry {
  chain_id: number;
  address: string;
  nonce: string;
  /** The signer whose account is delegated; null when the signature does not recover. */
  authority: string | null;
}

/** The row a sender gets for a transaction that gave it no other row. */
export interface SenderRow {
  type: Extract<ActivityType, 'send' | 'call'>;
  assetType: AssetType | null;
  extra: Record<string, unknown> | null;
}

/**
 * The sender's own row for a transaction whose derived rows name the sender nowhere: a
 * successful transaction without calldata (a zero-value send, a self-send cancelling a stuck
 * nonce, a set-code transaction) is a `send` of its native value, a reverted one a `call` marked
 * reverted, as reverted calls are. Null when the sender already has a row: one per transaction.
 *
 * @example
 * senderRow({ from: '0xw', to: '0xw', input: '0x', status: 1, rows: [] })
 * // { type: 'send', assetType: 'native', extra: null }
 */
export function senderRow(tx: {
  from: string;
  to: string | null;
  input: string;
  status: number;
  rows: readonly ActivityRow[];
}): SenderRow | null {
  if (tx.rows.some((r) => r.wallet === tx.from)) return null;
  if (tx.status === 1 && tx.input.length <= 2) {
    return { type: 'send', assetType: 'native', extra: null };
  }
  return {
    type: 'call',
    assetType: null,
    extra: {
      function: null,
      selector: tx.to && tx.input.length >= 10 ? tx.input.slice(0, 10).toLowerCase() : null,
      status: tx.status === 1 ? 'success' : 'reverted',
      ...(tx.to ? {} : { contract_creation: true }),
    },
  };
}

/**
 * Puts a set-code transaction's authorizations on the sender's first transaction-level row (its
 * first row otherwise), so the feed shows which delegation the transaction set or cleared.
 * No-op for other transactions.
 */
export function attachAuthorizations(tx: RpcTx, from: string, rows: ActivityRow[]): void {
  const list = tx.authorizationList;
  if (!list || list.length === 0) return;
  const own = rows.filter((r) => r.wallet === from);
  const target = own.find((r) => r.logIndex === -1) ?? own[0];
  if (!target) return;
  target.extra = { ...(target.extra ?? {}), authorization_list: list.map(authorizationEntry) };
}

function authorizationEntry(a: RpcAuthorization): AuthorizationEntry {
  return {
    chain_id: Number(BigInt(a.chainId)),
    address: a.address.toLowerCase(),
    nonce: BigInt(a.nonce).toString(),
    authority: authorityOf(a),
  };
}

/** Recovers the signer of an authorization (sync: derivation is pure and synchronous). */
function authorityOf(a: RpcAuthorization): string | null {
  try {
    const parity = a.yParity ?? a.v;
    if (parity === undefined) return null;
    const chainId = BigInt(a.chainId);
    const nonce = BigInt(a.nonce);
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    if (chainId > safe || nonce > safe) return null; // no valid authorization is this large
    const bit = Number(BigInt(parity));
    const recovery = bit === 27 || bit === 28 ? bit - 27 : bit;
    const hash = hashAuthorization({
      chainId: Number(chainId),
      address: a.address,
      nonce: Number(nonce),
    });
    const point = new secp256k1.Signature(hexToBigInt(a.r), hexToBigInt(a.s))
      .addRecoveryBit(recovery)
      .recoverPublicKey(hash.slice(2));
    return publicKeyToAddress(`0x${point.toHex(false)}` as Hex).toLowerCase();
  } catch {
    return null;
  }
}
