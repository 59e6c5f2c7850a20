/**
 * The writer's side of the store-change notification (the format: ./store-change.ts): what one
 * transaction touched, collected as keys and encoded as NOTIFY bodies.
 */
import { CHANGE_KEY_LENGTH, changeKey } from './store-change.js';

/** What a writer collects for one chain (addresses, keyed on the way in). */
interface Pending {
  all: boolean;
  wallets: Set<string>;
  nftWallets: Set<string>;
  /**
   * Whether balances are named per token. Once that would not fit the messages, they are not
   * (every wallet's balances may have changed, as a writer that does not say): the change stays
   * as small as it was without them instead of becoming `all`.
   */
  exactBalances: boolean;
  balanceWallets: Set<string>;
  /** `balancePairKey`s: twice a key's length, counted as two keys. */
  balancePairs: Set<string>;
  tokens: Set<string>;
  collections: Set<string>;
}

export interface EncodeOptions {
  /** Largest body (the `"c":[...]` part) per message; the envelope takes the rest. */
  maxBodyBytes?: number;
  /** Messages per chain at most; a chain that needs more is announced as `all`. */
  maxMessages?: number;
}

/** Room left for `{"v":1,"s":<schema>,"lsn":"XXXXXXXX/XXXXXXXX",` and `}`. */
export const DEFAULT_MAX_BODY_BYTES = 7_600;
/** 64 messages hold about 12,000 keys per chain; a batch touching more is a backfill. */
export const DEFAULT_MAX_MESSAGES = 64;

/**
 * Characters of a chain piece besides its keys:
 * `{"id":<id>,"nx":1,"bx":1,"w":"","nw":"","bw":"","b":"","t":"","n":""}` and a comma.
 */
const PIECE_OVERHEAD = 88;

/**
 * Collects what a transaction writes (wallets, tokens, collections per chain) and encodes it as
 * notification bodies. Writers hand it raw addresses; it keeps only keys, and stops collecting
 * for a chain (which becomes `all`) once its keys would need more than `maxMessages` messages.
 *
 * @example
 * const change = new StoreChangeBuilder();
 * change.wallet(1, from).wallet(1, to).token(1, usdc);
 * await publishStoreChange(tx, change);
 */
export class StoreChangeBuilder {
  readonly #chains = new Map<number, Pending>();
  readonly #maxBody: number;
  readonly #perPiece: number;
  readonly #maxKeys: number;

  constructor(opts: EncodeOptions = {}) {
    this.#maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    // At least one pair (two keys) per piece.
    this.#perPiece = Math.max(2, Math.floor((this.#maxBody - PIECE_OVERHEAD) / CHANGE_KEY_LENGTH));
    this.#maxKeys = this.#perPiece * (opts.maxMessages ?? DEFAULT_MAX_MESSAGES);
  }

  #add(
    chainId: number,
    fields: readonly ('wallets' | 'nftWallets' | 'balanceWallets' | 'tokens' | 'collections')[],
    address: string,
    /** The token whose balance of `address` changed (a pair is named). */
    token?: string,
  ): void {
    let c = this.#chains.get(chainId);
    if (!c) {
      c = empty(false);
      this.#chains.set(chainId, c);
    }
    if (c.all) return;
    const key = changeKey(address);
    for (const field of fields) {
      if (field !== 'balanceWallets' || c.exactBalances) c[field].add(key);
    }
    // Backfill batches outgrow the messages early: no pair key is built once it cannot be sent.
    if (token !== undefined && c.exactBalances) c.balancePairs.add(key + changeKey(token)); // balancePairKey
    if (keyCount(c) <= this.#maxKeys) return;
    if (c.exactBalances) {
      c.exactBalances = false;
      c.balanceWallets.clear();
      c.balancePairs.clear();
      if (keyCount(c) <= this.#maxKeys) return;
    }
    this.everything(chainId);
  }

  /** A wallet's balances, NFT holdings, activity or transactions changed. */
  wallet(chainId: number, address: string | null | undefined): this {
    if (address) this.#add(chainId, ['wallets', 'nftWallets', 'balanceWallets'], address);
    return this;
  }

  /**
   * A wallet's balances, activity or transactions changed, but not its NFT holdings: its cached
   * collectibles stay.
   */
  fungibleWallet(chainId: number, address: string | null | undefined): this {
    if (address) this.#add(chainId, ['wallets', 'balanceWallets'], address);
    return this;
  }

  /**
   * A wallet's activity or transactions changed and, of its balances, at most `token`'s
   * (`'native'` for the native balance): its cached answers of other single tokens stay. Any
   * other change of the wallet in the same transaction must be announced too.
   */
  walletBalance(chainId: number, address: string | null | undefined, token: string): this {
    if (address) this.#add(chainId, ['wallets'], address, token);
    return this;
  }

  /** A token's holders, supply or stored metadata changed. */
  token(chainId: number, address: string | null | undefined): this {
    if (address) this.#add(chainId, ['tokens'], address);
    return this;
  }

  /** An NFT collection's token metadata, collection data or sales changed. */
  collection(chainId: number, address: string | null | undefined): this {
    if (address) this.#add(chainId, ['collections'], address);
    return this;
  }

  /** Anything on the chain may have changed. */
  everything(chainId: number): this {
    this.#chains.set(chainId, empty(true));
    return this;
  }

  get empty(): boolean {
    return this.#chains.size === 0;
  }

  /** The notification bodies (`"c":[...]`), each small enough for one NOTIFY with its envelope. */
  encode(): string[] {
    const pieces: string[] = [];
    for (const [chainId, c] of this.#chains)
      pieces.push(...chainPieces(chainId, c, this.#perPiece));
    // Several chains share a message while they fit.
    const bodies: string[] = [];
    let current: string[] = [];
    let size = 6;
    for (const piece of pieces) {
      if (current.length > 0 && size + piece.length + 1 > this.#maxBody) {
        bodies.push(`"c":[${current.join(',')}]`);
        current = [];
        size = 6;
      }
      current.push(piece);
      size += piece.length + 1;
    }
    if (current.length > 0) bodies.push(`"c":[${current.join(',')}]`);
    return bodies;
  }
}

/** Keys a chain's change takes in messages (a balance pair is two). */
function keyCount(c: Pending): number {
  return (
    c.wallets.size +
    c.nftWallets.size +
    c.balanceWallets.size +
    2 * c.balancePairs.size +
    c.tokens.size +
    c.collections.size
  );
}

function empty(all: boolean): Pending {
  return {
    all,
    exactBalances: true,
    wallets: new Set(),
    nftWallets: new Set(),
    balanceWallets: new Set(),
    balancePairs: new Set(),
    tokens: new Set(),
    collections: new Set(),
  };
}

/** One chain's change as `{"id":..}` objects of at most `perPiece` keys each. */
function chainPieces(chainId: number, c: Pending, perPiece: number): string[] {
  if (c.all) return [`{"id":${chainId},"all":1}`];
  // Every piece says its `nw` (and `bw` and `b`, when named per token) are exact: a reader
  // applies pieces one by one.
  const head = `{"id":${chainId},"nx":1${c.exactBalances ? ',"bx":1' : ''}`;
  const pieces: string[] = [];
  let parts: string[] = [];
  let room = perPiece;
  let open: { field: string; keys: string[] } | undefined;
  const flush = () => {
    if (open) parts.push(`"${open.field}":"${open.keys.join('')}"`);
    open = undefined;
  };
  const fields: [string, Set<string>][] = [
    ['w', c.wallets],
    ['nw', c.nftWallets],
    ['bw', c.balanceWallets],
    ['b', c.balancePairs],
    ['t', c.tokens],
    ['n', c.collections],
  ];
  for (const [field, keys] of fields) {
    // A pair is two keys long.
    const size = field === 'b' ? 2 : 1;
    for (const key of keys) {
      if (room < size) {
        flush();
        pieces.push(`${head},${parts.join(',')}}`);
        parts = [];
        room = perPiece;
      }
      if (open?.field !== field) {
        flush();
        open = { field, keys: [] };
      }
      open.keys.push(key);
      room -= size;
    }
  }
  flush();
  if (parts.length > 0) pieces.push(`${head},${parts.join(',')}}`);
  return pieces;
}
