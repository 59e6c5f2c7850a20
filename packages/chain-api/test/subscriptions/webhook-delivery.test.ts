import { verify } from '@sluice/webhooks/methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playRandomOps } from '../indexer/random-workload.js';
import { startWebhookDevnet, type WebhookDevnet } from '../support/webhook-devnet.js';
import {
  insertWebhook,
  itemsOf,
  type Received,
  startReceiver,
  type TestReceiver,
  waitFor,
} from '../support/webhooks.js';

// Every type and filter against what anvil did: balances equal eth_getBalance/balanceOf at the
// block before and at the block; activities and transactions equal the read endpoints' items.
let net: WebhookDevnet;
let receiver: TestReceiver;
const secrets = new Map<string, string>();
const hooks: Record<string, string> = {};
let fromBlock = 0n;

const EXTRA_ACTIVITY = ['address', 'tx_from', 'tx_to', 'tx_value', 'call_type', 'data'];
const EXTRA_TX = ['transaction_type', 'effective_gas_price'];

function without(item: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out = { ...item };
  for (const k of keys) delete out[k];
  return out;
}

function deliveriesOf(name: string): Received[] {
  const id = hooks[name];
  // First accepted arrival of each delivery (a retry of an accepted one would be a duplicate).
  const seen = new Set<string>();
  return receiver.received.filter((r) => {
    if (r.webhookId !== id || !r.accepted || seen.has(r.deliveryId)) return false;
    seen.add(r.deliveryId);
    return true;
  });
}

const itemsOfHook = (name: string) => deliveriesOf(name).flatMap(itemsOf);

async function allEndpointItems(path: string, key: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let offset: string | undefined;
  do {
    const page = await net.get(`${path}${offset ? `&offset=${encodeURIComponent(offset)}` : ''}`);
    out.push(...((page[key] as Record<string, unknown>[]) ?? []));
    offset = (page.next_offset as string | undefined) ?? undefined;
  } while (offset);
  return out;
}

beforeAll(async () => {
  net = await startWebhookDevnet();
  receiver = await startReceiver(secrets);
  await net.index();
  fromBlock = (await net.head()) + 1n;
  const [a, b, c] = net.w.wallets as [string, string, string];
  const add = async (
    name: string,
    spec: Omit<Parameters<typeof insertWebhook>[1], 'keyId' | 'url'>,
  ) => {
    const hook = await insertWebhook(net.db, { keyId: net.keyId, url: receiver.url, ...spec });
    secrets.set(hook.id, hook.secret);
    hooks[name] = hook.id;
  };
  await add('balances', { type: 'balances', addresses: [a, b] });
  await add('activities', { type: 'activities', addresses: [a, b] });
  await add('transactions', { type: 'transactions', addresses: [a, b] });
  await add('senderOnly', { type: 'transactions', addresses: [a], transactionType: 'sender' });
  await add('nativeOnly', { type: 'balances', addresses: [a, b, c], assetType: 'native' });
  await add('oneToken', { type: 'activities', addresses: [a, b, c], tokenAddress: net.w.erc20[0] });
  await add('receives', { type: 'activities', addresses: [a, b, c], activityType: 'receive' });
  await add('withC', { type: 'transactions', addresses: [a], counterparty: c });
  await add('otherChain', { type: 'activities', addresses: [a, b], chainIds: [1] });
  // Prices as the pricing worker would have left them: the native coin and one token.
  await net.db.query(
    `insert into token_prices (chain_id, token, price_usd, pool_size, low_liquidity, quote,
                               price_in_quote, quote_liquidity, route, updated_block, updated_at)
     values (31337, 'native', 2500.5, 10000000, false, 'usd', 1, 1, '{}', 0, now()),
            (31337, $1, 0.25, 50, true, 'usd', 1, 1, '{}', 0, now())`,
    [net.w.erc20[0]],
  );
  await playRandomOps(net.anvil.rpcUrl, net.w, { seed: 43, ops: 60, perBlock: 3 });
  await net.index();
  net.dispatcher({});
  await waitFor(async () => {
    const { rows } = await net.db.query<{ n: string }>(
      `select count(*) as n from webhook_deliveries where status <> 'delivered'`,
    );
    return rows[0]?.n === '0';
  }, 'every delivery delivered');
}, 240_000);

afterAll(async () => {
  await net?.close();
  await receiver?.close();
});

describe('webhook deliveries against the chain', () => {
  it('signs every delivery with the webhook secret (and a wrong secret fails)', async () => {
    expect(receiver.received.length).toBeGreaterThan(10);
    expect(receiver.badSignatures).toBe(0);
    const r = receiver.received[0]!;
    expect(await verify('not the secret', r.raw, String(r.headers['dune-webhook-signature']))).toBe(
      false,
    );
    for (const got of receiver.received) {
      expect(got.chainId).toBe(31337);
      expect(got.retryIndex).toBe(0);
      expect(new Date(String(got.headers['dune-webhook-dispatch-timestamp'])).toISOString()).toBe(
        got.headers['dune-webhook-dispatch-timestamp'],
      );
      expect(Object.keys(got.body)).toEqual([
        { balances: 'balance_changes', activities: 'activities', transactions: 'transactions' }[
          got.type
        ],
      ]);
    }
  });

  it('balances: amount_before/after equal the node at the block before and at the block', async () => {
    const items = itemsOfHook('balances');
    expect(items.length).toBeGreaterThan(10);
    const assets = new Set(items.map((i) => (i.asset as { token_address: string }).token_address));
    expect(assets.has('native')).toBe(true);
    expect([...assets].some((x) => x !== 'native')).toBe(true);
    for (const item of items) {
      const asset = (item.asset as { token_address: string }).token_address;
      const block = BigInt(item.block_number as number);
      const wallet = item.subscribed_address as string;
      expect(BigInt(item.amount_after as string)).toBe(await net.balanceAt(wallet, asset, block));
      expect(BigInt(item.amount_before as string)).toBe(
        await net.balanceAt(wallet, asset, block - 1n),
      );
      const delta = BigInt(item.amount_delta as string);
      expect(delta).toBe(
        BigInt(item.amount_after as string) - BigInt(item.amount_before as string),
      );
      expect(item.direction).toBe(delta > 0n ? 'in' : 'out');
      expect(item.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    // Every change the node shows between consecutive blocks of a watched pair was delivered.
    const [a] = net.w.wallets as [string];
    const head = await net.head();
    const nativeBlocks = new Set(
      items
        .filter(
          (i) =>
            i.subscribed_address === a &&
            (i.asset as { token_address: string }).token_address === 'native',
        )
        .map((i) => Number(i.block_number)),
    );
    for (let b = fromBlock; b <= head; b++) {
      const changed =
        (await net.balanceAt(a, 'native', b)) !== (await net.balanceAt(a, 'native', b - 1n));
      expect(nativeBlocks.has(Number(b))).toBe(changed);
    }
    expect(
      itemsOfHook('nativeOnly').every(
        (i) => (i.asset as { token_address: string }).token_address === 'native',
      ),
    ).toBe(true);
  });

  it('activities equal the activity endpoint item by item, in chain order', async () => {
    const [a, b] = net.w.wallets as [string, string];
    for (const wallet of [a, b]) {
      const delivered = itemsOfHook('activities').filter((i) => i.address === wallet);
      const endpoint = (
        await allEndpointItems(`/v1/evm/activity/${wallet}?chain_ids=31337&limit=100`, 'activity')
      )
        .filter((i) => BigInt(i.block_number as number) >= fromBlock)
        .reverse();
      expect(delivered.length).toBeGreaterThan(0);
      expect(delivered.map((i) => without(i, EXTRA_ACTIVITY))).toEqual(endpoint);
      for (const i of delivered) {
        expect(i.tx_from).toMatch(/^0x/);
        if (i.type === 'call')
          expect(i.call_type).toBe(i.from === wallet ? 'outgoing' : 'incoming');
      }
    }
    const blocks = deliveriesOf('activities').map((r) => Number(itemsOf(r)[0]!.block_number));
    expect(blocks).toEqual([...blocks].sort((x, y) => x - y));
  });

  it('transactions equal the transactions endpoint (decode=true) plus receipt fields', async () => {
    const [a, b] = net.w.wallets as [string, string];
    for (const wallet of [a, b]) {
      const delivered = itemsOfHook('transactions').filter((i) => i.address === wallet);
      const endpoint = (
        await allEndpointItems(
          `/v1/evm/transactions/${wallet}?chain_ids=31337&limit=100&decode=true`,
          'transactions',
        )
      ).filter((i) => BigInt(i.block_number as number) >= fromBlock);
      const byHash = new Map(endpoint.map((i) => [i.hash, i]));
      expect(delivered.length).toBeGreaterThan(0);
      expect(new Set(delivered.map((i) => i.hash))).toEqual(new Set(byHash.keys()));
      for (const item of delivered) {
        expect(without(item, EXTRA_TX)).toEqual(byHash.get(item.hash));
        expect(item.transaction_type).toBe(item.from === wallet ? 'Sender' : 'Receiver');
        expect(item.effective_gas_price).toBe(item.gas_price);
        expect(typeof item.success).toBe('boolean');
      }
    }
  });

  it('applies the filters: transaction_type, token_address, activity_type, counterparty, chain_ids', async () => {
    const [a, , c] = net.w.wallets as [string, string, string];
    const sender = itemsOfHook('senderOnly');
    expect(sender.length).toBeGreaterThan(0);
    expect(sender.every((i) => i.transaction_type === 'Sender' && i.from === a)).toBe(true);
    const token = itemsOfHook('oneToken');
    expect(token.length).toBeGreaterThan(0);
    expect(token.every((i) => i.token_address === net.w.erc20[0])).toBe(true);
    const receives = itemsOfHook('receives');
    expect(receives.length).toBeGreaterThan(0);
    expect(receives.every((i) => i.type === 'receive')).toBe(true);
    const withC = itemsOfHook('withC');
    const expected = itemsOfHook('transactions').filter(
      (i) => i.address === a && (i.from === c || i.to === c),
    );
    expect(withC.map((i) => i.hash).sort()).toEqual(expected.map((i) => i.hash).sort());
    expect(deliveriesOf('otherChain')).toEqual([]);
  });
});
