import { describe, expect, it } from 'vitest';
import {
  balancePairKey,
  CHANGE_KEY_LENGTH,
  changeKey,
  MAX_NOTIFY_BYTES,
  parseStoreChange,
  type StoreChange,
} from './store-change.js';
import { StoreChangeBuilder } from './store-change-builder.js';

const usdc = 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const address = (i: number) => `0x${i.toString(16).padStart(12, '0')}${'0'.repeat(28)}`;
/** What the SQL envelope adds around a body (the longest LSN, a 63-byte schema). */
const envelope = (body: string) =>
  `{"v":1,"s":"${'s'.repeat(63)}","lsn":"FFFFFFFF/FFFFFFFF",${body}}`;
/** Each body as a listener reads it, checked to fit one NOTIFY with the longest envelope. */
const messages = (bodies: readonly string[]): StoreChange[] =>
  bodies.map((body) => {
    const payload = envelope(body);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_NOTIFY_BYTES);
    return parseStoreChange(payload);
  });
const chainsOf = (bodies: readonly string[]) => messages(bodies).flatMap((m) => m.chains);

describe('store change format', () => {
  it('keys addresses by their hex digits, native by a padded name', () => {
    expect(changeKey('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBe(
      'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    );
    expect(changeKey('native')).toBe(`native${'_'.repeat(34)}`);
    expect(changeKey('native')).toHaveLength(CHANGE_KEY_LENGTH);
  });

  it('round-trips wallets, tokens and collections per chain', () => {
    const change = new StoreChangeBuilder()
      .wallet(1, address(1))
      .wallet(1, address(1))
      .wallet(8453, address(2))
      .token(1, address(3))
      .collection(1, address(4))
      .wallet(1, null);
    const bodies = change.encode();
    expect(bodies).toHaveLength(1);
    const parsed = parseStoreChange(envelope(bodies[0]!));
    expect(parsed.all).toBe(false);
    expect(parsed.lsn).toBe('FFFFFFFF/FFFFFFFF');
    const byId = new Map(parsed.chains.map((c) => [c.chainId, c]));
    expect([...byId.get(1)!.wallets]).toEqual([changeKey(address(1))]);
    expect([...byId.get(1)!.tokens]).toEqual([changeKey(address(3))]);
    expect([...byId.get(1)!.collections]).toEqual([changeKey(address(4))]);
    expect([...byId.get(8453)!.wallets]).toEqual([changeKey(address(2))]);
    expect(byId.get(1)!.all).toBe(false);
    expect(byId.get(1)!.prices.size).toBe(0);
  });

  it('tells wallets whose NFT holdings changed from those whose balances only did', () => {
    const change = new StoreChangeBuilder()
      .fungibleWallet(1, address(1))
      .wallet(1, address(2))
      .fungibleWallet(1, address(2))
      .fungibleWallet(1, null);
    const parsed = parseStoreChange(envelope(change.encode()[0]!));
    const chain = parsed.chains[0]!;
    expect([...chain.wallets].sort()).toEqual(
      [changeKey(address(1)), changeKey(address(2))].sort(),
    );
    expect([...chain.nftWallets]).toEqual([changeKey(address(2))]);
    // A writer that does not say (the SQL triggers, older writers): every wallet's holdings.
    const legacy = parseStoreChange(envelope(`"c":[{"id":1,"w":"${changeKey(address(1))}"}]`))
      .chains[0]!;
    expect([...legacy.nftWallets]).toEqual([changeKey(address(1))]);
  });

  it('names the balances that moved per token, and every balance of wallets it cannot say', () => {
    const change = new StoreChangeBuilder()
      .walletBalance(1, address(1), usdc)
      .walletBalance(1, address(1), 'native')
      .walletBalance(1, address(2), `0x${usdc.toUpperCase()}`)
      .fungibleWallet(1, address(3))
      .wallet(1, address(4))
      .walletBalance(1, null, usdc);
    const chain = parseStoreChange(envelope(change.encode()[0]!)).chains[0]!;
    expect(chain.wallets.size).toBe(4);
    expect([...chain.balanceWallets].sort()).toEqual(
      [changeKey(address(3)), changeKey(address(4))].sort(),
    );
    expect([...chain.balancePairs].sort()).toEqual(
      [
        balancePairKey(address(1), usdc),
        balancePairKey(address(1), 'native'),
        balancePairKey(address(2), usdc),
      ].sort(),
    );
    // A writer that does not say (the SQL triggers, older writers): every balance of every wallet.
    const legacy = parseStoreChange(envelope(`"c":[{"id":1,"w":"${changeKey(address(1))}"}]`))
      .chains[0]!;
    expect([...legacy.balanceWallets]).toEqual([changeKey(address(1))]);
    expect(legacy.balancePairs.size).toBe(0);
  });

  it('splits balance pairs over messages, never a pair in two, each under the limit', () => {
    const change = new StoreChangeBuilder();
    for (let i = 0; i < 700; i++)
      change.walletBalance(1, address(i + 1), address(90_000 + (i % 7)));
    const bodies = change.encode();
    expect(bodies.length).toBeGreaterThan(3);
    const pairs = new Set<string>();
    for (const c of chainsOf(bodies)) {
      expect(c.all).toBe(false);
      for (const p of c.balancePairs) pairs.add(p);
    }
    expect(pairs.size).toBe(700);
    expect(pairs.has(balancePairKey(address(1), address(90_000)))).toBe(true);
    // The smallest pieces still hold a pair.
    const tiny = new StoreChangeBuilder({ maxBodyBytes: 10 }).walletBalance(1, address(1), usdc);
    const tinyPairs = tiny
      .encode()
      .flatMap((body) => parseStoreChange(`{"v":1,"s":"s","lsn":null,${body}}`).chains)
      .flatMap((c) => [...c.balancePairs]);
    expect(tinyPairs).toEqual([balancePairKey(address(1), usdc)]);
  });

  it('names balances per wallet instead of per token when the pairs would not fit, not all', () => {
    const change = new StoreChangeBuilder();
    for (let i = 0; i < 5_000; i++) {
      change.walletBalance(1, address(i + 1), usdc).walletBalance(1, address(i + 1), 'native');
    }
    const wallets = new Set<string>();
    for (const c of chainsOf(change.encode())) {
      expect(c.all).toBe(false);
      expect(c.balancePairs.size).toBe(0);
      // Every wallet named: every balance of it may have changed.
      expect(c.balanceWallets).toEqual(c.wallets);
      for (const w of c.wallets) wallets.add(w);
    }
    expect(wallets.size).toBe(5_000);
  });

  it('splits NFT holdings wallets over messages with every piece exact about them', () => {
    const change = new StoreChangeBuilder();
    for (let i = 0; i < 600; i++) change.fungibleWallet(1, address(i + 1));
    for (let i = 0; i < 300; i++) change.wallet(1, address(50_000 + i));
    const bodies = change.encode();
    expect(bodies.length).toBeGreaterThan(2);
    const wallets = new Set<string>();
    const nft = new Set<string>();
    for (const c of chainsOf(bodies)) {
      expect(c.all).toBe(false);
      for (const w of c.wallets) wallets.add(w);
      for (const w of c.nftWallets) nft.add(w);
    }
    expect(wallets.size).toBe(900);
    expect(nft.size).toBe(300);
    expect(nft.has(changeKey(address(1)))).toBe(false);
    expect(nft.has(changeKey(address(50_000)))).toBe(true);
  });

  it('splits a large change into complete messages under the NOTIFY limit', () => {
    const change = new StoreChangeBuilder();
    for (let i = 0; i < 1_000; i++) change.wallet(1, address(i + 1));
    for (let i = 0; i < 300; i++) change.token(1, address(100_000 + i));
    const bodies = change.encode();
    expect(bodies.length).toBeGreaterThan(1);
    const wallets = new Set<string>();
    const tokens = new Set<string>();
    for (const parsed of messages(bodies)) {
      expect(parsed.all).toBe(false);
      for (const c of parsed.chains) {
        expect(c.all).toBe(false);
        for (const w of c.wallets) wallets.add(w);
        for (const t of c.tokens) tokens.add(t);
      }
    }
    expect(wallets.size).toBe(1_000);
    expect(tokens.size).toBe(300);
  });

  it('announces a chain as a whole when its keys would need too many messages', () => {
    const change = new StoreChangeBuilder({ maxMessages: 2 });
    for (let i = 0; i < 1_000; i++) change.wallet(1, address(i + 1));
    change.wallet(10, address(1));
    const parsed = change.encode().map((b) => parseStoreChange(envelope(b)));
    const chains = parsed.flatMap((p) => p.chains);
    expect(chains.find((c) => c.chainId === 1)).toMatchObject({ all: true });
    // The other chain stays precise.
    expect(chains.find((c) => c.chainId === 10)).toMatchObject({ all: false });
  });

  it('widens what it cannot read: legacy payloads, other versions, bad JSON or keys', () => {
    expect(parseStoreChange('public')).toMatchObject({ schema: 'public', all: true });
    expect(parseStoreChange('{"v":2,"s":"x","c":[]}')).toMatchObject({ schema: 'x', all: true });
    expect(parseStoreChange('{"v":1,"s":"x"')).toMatchObject({ schema: undefined, all: true });
    expect(parseStoreChange('{"v":1,"s":"x","all":1,"c":[]}')).toMatchObject({ all: true });
    expect(parseStoreChange('{"v":1,"s":"x","c":[{"w":"abc"}]}')).toMatchObject({ all: true });
    const oddKeys = parseStoreChange('{"v":1,"s":"x","lsn":null,"c":[{"id":1,"w":"abc"}]}');
    expect(oddKeys.all).toBe(false);
    expect(oddKeys.chains[0]).toMatchObject({ chainId: 1, all: true, allPrices: true });
  });

  it('reads prices, history from a time, and spam verdicts', () => {
    const parsed = parseStoreChange(
      `{"v":1,"s":"x","lsn":null,"c":[{"id":1,"p":"${changeKey('native')}","h":"${usdc}","hs":1700000000.5,"spam":1},{"id":2,"pa":1,"ha":1}]}`,
    );
    const [one, two] = parsed.chains;
    expect([...one!.prices]).toEqual([changeKey('native')]);
    expect([...one!.history]).toEqual([usdc]);
    expect(one!.historySince).toBe(1_700_000_000.5);
    expect(one!.spam).toBe(true);
    expect(two).toMatchObject({ allPrices: true, allHistory: true, all: false });
    expect(two!.historySince).toBe(Number.NEGATIVE_INFINITY);
  });
});
