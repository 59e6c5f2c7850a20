import { describe, expect, it } from 'vitest';
import {
  changeKey,
  parseStoreChange,
  STORE_CHANGED_CHANNEL,
  type StoreChange,
} from '../../store/changes/store-change.js';
import { anyChangeDep, invalidationOf, nftWalletDeps, walletDeps } from './cache-deps.js';
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
});
