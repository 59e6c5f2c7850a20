/**
 * The store-change notification: what one committed write touched, per chain, sent on
 * `NOTIFY sluice_store_changed` by every writer (src/store/changes/publish-store-change.ts for the
 * indexer, reconciler and reorg rollback; the triggers of src/store/changes/change-migrations.ts for
 * pricing, the NFT worker and any other writer). API processes drop exactly the cached answers
 * it names (src/api/response-cache/).
 *
 * Wire format (JSON, at most 8,000 bytes per NOTIFY; a larger change is split over several
 * messages, each complete on its own, or made coarse):
 *
 *     {"v":1,"s":"<schema>","lsn":"0/16B3748"|null,"all":1?,"c":[<chain>, ...]}
 *     <chain> = {"id":1,"all":1?,"w":"<keys>","t":"<keys>","n":"<keys>","p":"<keys>","pa":1?,
 *                "h":"<keys>","ha":1?,"hs":<epoch s>,"spam":1?,"nx":1?,"nw":"<keys>",
 *                "bx":1?,"bw":"<keys>","b":"<pairs>"}
 *
 * - `s`: the store's schema (a database may hold several stores); `lsn`: the primary's WAL
 *   position when the change was published (`pg_current_wal_lsn()`, null on PGlite). It is read
 *   inside the writing transaction, so it precedes that transaction's commit record.
 * - `<keys>`: concatenated 40-character keys, each an address's 40 hex digits after `0x`, lower
 *   case (`native` is `native` padded with `_`): about 190 addresses per message.
 * - `w` wallets (balances, activity, holdings, transactions); `t` tokens whose holders, supply
 *   or metadata changed; `n` NFT collections whose metadata, collection data or sales changed;
 *   `p` tokens whose current price changed (`pa`: every price of the chain); `h` tokens whose
 *   price history changed at or after `hs` (`ha`: every token's); `spam`: spam verdicts changed;
 *   `all` on a chain: anything on that chain; `all` at the top: anything in the schema.
 * - `nx`: this piece's `nw` lists exactly the wallets whose NFT holdings changed (each also in
 *   `w` of the same change); without it every `w` wallet's holdings may have changed. An ERC20
 *   transfer then leaves a wallet's cached collectibles alone.
 * - `bx`: this piece's balances are exact: `bw` lists the wallets any of whose balances may have
 *   changed, `b` (pairs: a wallet's key then a token's, 80 characters) the wallets of which only
 *   those tokens' balances may have (`native` for the native balance). Without it every `w`
 *   wallet's balances may have changed. A transfer of one token then leaves the wallet's cached
 *   single-token answers of other tokens alone. A change with more pairs than its messages hold
 *   leaves `bx` out (as large as it was without them) rather than becoming `all`.
 * - A payload that is not JSON (the legacy form: the bare schema name) means `all` for that schema.
 */

/** The channel every store change is notified on. */
export const STORE_CHANGED_CHANNEL = 'sluice_store_changed';

/** Characters of a key: an address without `0x`. */
export const CHANGE_KEY_LENGTH = 40;

/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more. */
export const MAX_NOTIFY_BYTES = 7_999;

/** What changed on one chain. Key lists hold `changeKey`s. */
export interface ChainStoreChange {
  chainId: number;
  /** Anything on this chain may have changed. */
  all: boolean;
  wallets: ReadonlySet<string>;
  /** Wallets whose NFT holdings may have changed (all of `wallets` unless the writer said). */
  nftWallets: ReadonlySet<string>;
  /** Wallets any of whose balances may have changed (all of `wallets` unless the writer said). */
  balanceWallets: ReadonlySet<string>;
  /** Wallet key + token key (`balancePairKey`): of these wallets, only these balances changed. */
  balancePairs: ReadonlySet<string>;
  tokens: ReadonlySet<string>;
  collections: ReadonlySet<string>;
  prices: ReadonlySet<string>;
  /** Every current price of the chain may have changed. */
  allPrices: boolean;
  history: ReadonlySet<string>;
  /** Every token's price history may have changed (at or after `historySince`). */
  allHistory: boolean;
  /** Epoch seconds: the earliest history point written or deleted (-Infinity: unknown). */
  historySince: number;
  spam: boolean;
}

/** One parsed notification. */
export interface StoreChange {
  schema: string | undefined;
  /** The primary's WAL position when published (before the commit record); null on PGlite. */
  lsn: string | null;
  /** Anything in the schema may have changed (legacy payload, unknown version, bad JSON). */
  all: boolean;
  chains: ChainStoreChange[];
}

/**
 * The key an address is announced under: its hex digits after `0x`, lower case (`native` is
 * padded to the same length with `_`). Whole addresses, not prefixes: addresses built from
 * labels (tests, vanity addresses) share long prefixes.
 *
 * @example
 * changeKey('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48') // 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
 */
export function changeKey(address: string): string {
  if (address.startsWith('0x') || address.startsWith('0X')) {
    return address.slice(2, 2 + CHANGE_KEY_LENGTH).toLowerCase();
  }
  return address.toLowerCase().padEnd(CHANGE_KEY_LENGTH, '_').slice(0, CHANGE_KEY_LENGTH);
}

/**
 * The key of one wallet's balance of one token (`native` for the native balance).
 *
 * @example
 * balancePairKey('0xd8da…', 'native') // '<40 hex digits>native__…'
 */
export function balancePairKey(wallet: string, token: string): string {
  return changeKey(wallet) + changeKey(token);
}

const emptySet: ReadonlySet<string> = new Set();

function coarseChain(chainId: number): ChainStoreChange {
  return {
    chainId,
    all: true,
    wallets: emptySet,
    nftWallets: emptySet,
    balanceWallets: emptySet,
    balancePairs: emptySet,
    tokens: emptySet,
    collections: emptySet,
    prices: emptySet,
    allPrices: true,
    history: emptySet,
    allHistory: true,
    historySince: Number.NEGATIVE_INFINITY,
    spam: true,
  };
}

function keysOf(value: unknown, length = CHANGE_KEY_LENGTH): Set<string> | undefined {
  if (value === undefined) return new Set();
  if (typeof value !== 'string' || value.length % length !== 0) return undefined;
  const keys = new Set<string>();
  for (let i = 0; i < value.length; i += length) {
    keys.add(value.slice(i, i + length));
  }
  return keys;
}

function parseChain(raw: unknown): ChainStoreChange | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const c = raw as Record<string, unknown>;
  const chainId = c.id;
  if (typeof chainId !== 'number' || !Number.isInteger(chainId)) return undefined;
  const [wallets, tokens, collections, prices, history] = ['w', 't', 'n', 'p', 'h'].map((f) =>
    keysOf(c[f]),
  );
  // A malformed list cannot be trusted in part: everything on the chain.
  if (!wallets || !tokens || !collections || !prices || !history) return coarseChain(chainId);
  if (c.all) return coarseChain(chainId);
  const nftWallets = c.nx === 1 ? keysOf(c.nw) : wallets;
  const exactBalances = c.bx === 1;
  const balanceWallets = exactBalances ? keysOf(c.bw) : wallets;
  const balancePairs = exactBalances ? keysOf(c.b, 2 * CHANGE_KEY_LENGTH) : emptySet;
  if (!nftWallets || !balanceWallets || !balancePairs) return coarseChain(chainId);
  const since = c.hs;
  return {
    chainId,
    all: false,
    wallets,
    nftWallets,
    balanceWallets,
    balancePairs,
    tokens,
    collections,
    prices,
    allPrices: Boolean(c.pa),
    history,
    allHistory: Boolean(c.ha),
    historySince:
      typeof since === 'number' && Number.isFinite(since) ? since : Number.NEGATIVE_INFINITY,
    spam: Boolean(c.spam),
  };
}

/**
 * Reads one notification payload. Anything it cannot read precisely is widened, never narrowed:
 * the legacy bare-schema payload, an unknown version or malformed JSON mean "anything changed".
 *
 * @example
 * parseStoreChange('{"v":1,"s":"public","lsn":null,"c":[{"id":1,"w":"<40 hex digits>"}]}')
 * // { schema: 'public', lsn: null, all: false, chains: [{ chainId: 1, wallets: Set {'…'}, ... }] }
 */
export function parseStoreChange(payload: string): StoreChange {
  if (!payload.startsWith('{')) return { schema: payload, lsn: null, all: true, chains: [] };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return { schema: undefined, lsn: null, all: true, chains: [] };
  }
  const schema = typeof raw.s === 'string' ? raw.s : undefined;
  const lsn = typeof raw.lsn === 'string' ? raw.lsn : null;
  if (raw.v !== 1 || raw.all || !Array.isArray(raw.c))
    return { schema, lsn, all: true, chains: [] };
  const chains: ChainStoreChange[] = [];
  for (const item of raw.c) {
    const chain = parseChain(item);
    if (!chain) return { schema, lsn, all: true, chains: [] };
    chains.push(chain);
  }
  return { schema, lsn, all: false, chains };
}
