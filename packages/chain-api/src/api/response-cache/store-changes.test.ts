import { describe, expect, it } from 'vitest';
import {
  changeKey,
  STORE_CHANGED_CHANNEL,
  type StoreChange,
} from '../../store/changes/store-change.js';
import { anyChangeDep, invalidationOf, walletDeps } from './cache-deps.js';
import { followStoreChanges, type PayloadFeed, subscribeToFeed } from './store-changes.js';

const wallet = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';

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
  });
});
