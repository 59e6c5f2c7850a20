import { describe, expect, it } from 'vitest';
import {
  changeKey,
  parseStoreChange,
  STORE_CHANGED_CHANNEL,
  type StoreChange,
} from '../../store/changes/store-change.js';
import {
  anyChangeDep,
  invalidationOf,
  nftWalletDeps,
  walletDeps,
  walletTokenDeps,
} from './cache-deps.js';
import { followStoreChanges, type PayloadFeed, subscribeToFeed } from './store-changes.js';

const wallet = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';
const other = '0x00000000219ab540356cbb839cbe05303d7705fa';

/** A feed of several channels, as the replicas deployment's transports are. */
function fakeFeed(connected: boolean) {
  let handlers: Parameters<PayloadFeed['subscribe']>[0] | undefined;
  let subscribed = 0;
  const feed: PayloadFeed = {
    connected,
    subscribe(h) {
      handlers = h;
      subscribed++;
      return () => {
        subscribed--;
      };
    },
  };
  return { feed, send: () => handlers!, subscribed: () => subscribed };
}

describe('store change delivery', () => {
  it("takes this store's payloads of a multi-channel feed, starting from its connection state", async () => {
    const { feed, send, subscribed } = fakeFeed(false);
    const changes: StoreChange[] = [];
    let resets = 0;
    const following = await followStoreChanges({
      schema: 'store_a',
      subscribe: subscribeToFeed(feed),
      onChange: (c) => changes.push(c),
      onReset: () => resets++,
    });
    // The feed was down when subscribing: bypass until it is up, then forget everything.
    expect(following.following()).toBe(false);
    send().onConnectionChange?.(true);
    expect(following.following()).toBe(true);
    expect(resets).toBe(1);
    const body = `"c":[{"id":1,"w":"${changeKey(wallet)}"}]`;
    send().onChange({ channel: 'other_channel', payload: 'store_a' });
    send().onChange({
      channel: STORE_CHANGED_CHANNEL,
      payload: `{"v":1,"s":"store_b","lsn":null,${body}}`,
    });
    send().onChange({
      channel: STORE_CHANGED_CHANNEL,
      payload: `{"v":1,"s":"store_a","lsn":null,${body}}`,
    });
    // Unreadable: may be ours, so it counts (as "anything changed").
    send().onChange({ channel: STORE_CHANGED_CHANNEL, payload: '{"v":1,' });
    expect(changes.map((c) => c.all)).toEqual([false, true]);
    expect([...changes[0]!.chains[0]!.wallets]).toEqual([changeKey(wallet)]);
    send().onConnectionChange?.(false);
    expect(following.following()).toBe(false);
    expect(resets).toBe(2);
    await following.close();
    expect(subscribed()).toBe(0);
  });

  it('drops answers built from what no change names precisely on any change of their chain', () => {
    const inv = invalidationOf({
      schema: 's',
      lsn: null,
      all: false,
      chains: [
        {
          chainId: 1,
          all: false,
          wallets: new Set([changeKey(wallet)]),
          nftWallets: new Set(),
          balanceWallets: new Set([changeKey(wallet)]),
          balancePairs: new Set(),
          tokens: new Set(),
          collections: new Set(),
          prices: new Set(),
          allPrices: false,
          history: new Set(),
          allHistory: false,
          historySince: Number.NEGATIVE_INFINITY,
          spam: false,
        },
      ],
    });
    if (inv === 'all') throw new Error('a wallet change is not a change of everything');
    expect(inv.matches([anyChangeDep(1)])).toBe(true);
    expect(inv.matches([anyChangeDep(10)])).toBe(false);
    expect(inv.matches(walletDeps(wallet, [1]))).toBe(true);
    expect(inv.matches(walletDeps(wallet, [10]))).toBe(false);
    // An ERC20 or native change of the wallet: its NFT holdings did not move.
    expect(inv.matches(nftWalletDeps(wallet, [1]))).toBe(false);
  });

  it("drops a wallet's collectibles when its holdings change, or when the writer does not say", () => {
    const key = changeKey(wallet);
    const exact = invalidationOf(
      parseStoreChange(
        `{"v":1,"s":"s","lsn":null,"c":[{"id":1,"nx":1,"w":"${key}","nw":"${key}"}]}`,
      ),
    );
    const legacy = invalidationOf(
      parseStoreChange(`{"v":1,"s":"s","lsn":null,"c":[{"id":1,"w":"${key}"}]}`),
    );
    const fungible = invalidationOf(
      parseStoreChange(`{"v":1,"s":"s","lsn":null,"c":[{"id":1,"nx":1,"w":"${key}"}]}`),
    );
    for (const inv of [exact, legacy, fungible]) {
      if (inv === 'all') throw new Error('a wallet change is not a change of everything');
      expect(inv.matches(walletDeps(wallet, [1]))).toBe(true);
    }
    if (exact === 'all' || legacy === 'all' || fungible === 'all') return;
    expect(exact.matches(nftWalletDeps(wallet, [1]))).toBe(true);
    expect(legacy.matches(nftWalletDeps(wallet, [1]))).toBe(true);
    expect(fungible.matches(nftWalletDeps(wallet, [1]))).toBe(false);
    // A malformed holdings list widens to the whole chain.
    const bad = invalidationOf(
      parseStoreChange(`{"v":1,"s":"s","lsn":null,"c":[{"id":1,"nx":1,"w":"${key}","nw":"abc"}]}`),
    );
    if (bad === 'all') throw new Error('one chain is coarse, not the schema');
    expect(bad.matches(nftWalletDeps(other, [1]))).toBe(true);
  });

  it("keeps a wallet's single-token answer when another token of it moves, not its own", () => {
    const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    const dai = '0x6b175474e89094c44da98b954eedeac495271d0f';
    const key = changeKey(wallet);
    const pair = (token: string) => key + changeKey(token);
    const change = (piece: string) =>
      invalidationOf(parseStoreChange(`{"v":1,"s":"s","lsn":null,"c":[{"id":1,${piece}}]}`));
    const daiMoved = change(`"bx":1,"w":"${key}","b":"${pair(dai)}"`);
    const usdcMoved = change(`"bx":1,"w":"${key}","b":"${pair(usdc)}"`);
    const nativeMoved = change(`"bx":1,"w":"${key}","b":"${pair('native')}"`);
    // Any balance of the wallet (an NFT move, a reconciliation), or a writer that does not say.
    const anyBalance = change(`"bx":1,"w":"${key}","bw":"${key}"`);
    const legacy = change(`"w":"${key}"`);
    const otherWallet = change(
      `"bx":1,"w":"${changeKey(other)}","b":"${changeKey(other)}${changeKey(usdc)}"`,
    );
    const invs = [daiMoved, usdcMoved, nativeMoved, anyBalance, legacy, otherWallet];
    if (invs.some((inv) => inv === 'all')) throw new Error('a wallet change is not everything');
    const [d, u, n, a, l, o] = invs as Exclude<(typeof invs)[number], 'all'>[];
    const usdcAnswer = walletTokenDeps(wallet, 1, usdc.toUpperCase().replace('0X', '0x'));
    expect(d!.matches(usdcAnswer)).toBe(false);
    expect(n!.matches(usdcAnswer)).toBe(false);
    expect(o!.matches(usdcAnswer)).toBe(false);
    expect(u!.matches(usdcAnswer)).toBe(true);
    expect(a!.matches(usdcAnswer)).toBe(true);
    expect(l!.matches(usdcAnswer)).toBe(true);
    expect(n!.matches(walletTokenDeps(wallet, 1, 'native'))).toBe(true);
    expect(u!.matches(walletTokenDeps(wallet, 8453, usdc))).toBe(false);
    // The wallet's other answers (balances, activity) drop on any of them.
    for (const inv of [d, u, n, a, l]) expect(inv!.matches(walletDeps(wallet, [1]))).toBe(true);
    // A malformed pair list widens to the whole chain.
    const bad = change(`"bx":1,"w":"${key}","b":"${key}"`);
    if (bad === 'all') throw new Error('one chain is coarse, not the schema');
    expect(bad.matches(walletTokenDeps(other, 1, usdc))).toBe(true);
  });
});
