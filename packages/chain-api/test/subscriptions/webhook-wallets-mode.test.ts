import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexOnce } from '../../src/ingest/index.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { rpcCall, send, waitReceipt } from '../indexer/random-workload.js';
import { silent, startWebhookDevnet, type WebhookDevnet } from '../support/webhook-devnet.js';
import {
  insertWebhook,
  itemsOf,
  startReceiver,
  type TestReceiver,
  waitFor,
} from '../support/webhooks.js';

// A wallets-mode chain delivers to watched addresses it does not track, without tracking them:
// the items are what full mode delivers for the same blocks (a full-mode store indexes the same
// node as the reference), balances equal the node at the block before and at the block, and
// nothing of those addresses is stored.
type HookType = 'activities' | 'transactions' | 'balances';
const TYPES: HookType[] = ['activities', 'transactions', 'balances'];

let net: WebhookDevnet;
let full: TestDatabase;
let receiver: TestReceiver;
const secrets = new Map<string, string>();
/** Per type: the wallets-mode webhook and the same webhook in the full-mode store. */
const hooks = {} as Record<HookType, { wallets: string; full: string }>;
let watched: Hex[] = [];

const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
const multicall = parseAbi([
  'function aggregate3Value((address target, bool allowFailure, uint256 value, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

async function indexFull(batchSize = 1): Promise<void> {
  const chain = { ...net.chain, mode: 'full' as const };
  await indexOnce({
    db: full.db,
    chains: [chain],
    log: silent,
    batchSize,
    maxBatchSize: batchSize,
  });
}

async function indexBoth(batchSize = 1): Promise<void> {
  await indexFull(batchSize);
  await net.index(batchSize);
}

/** Mines one block per transaction (automine). */
async function play(txs: readonly [Hex, Hex, Hex, bigint][]): Promise<void> {
  for (const [from, to, data, value] of txs)
    await waitReceipt(net.anvil.rpcUrl, await send(net.anvil.rpcUrl, from, to, data, value));
}

/**
 * An ERC20 transfer and a native send by a, a native transfer to b inside a contract call by c
 * (Multicall3 forwarding value: an internal transfer), and an ERC20 transfer to a.
 */
function activity(step: bigint): [Hex, Hex, Hex, bigint][] {
  const [a, b, c, d] = net.w.wallets as [Hex, Hex, Hex, Hex];
  const token = net.w.erc20[0] as Hex;
  const transfer = (to: Hex, value: bigint) =>
    encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, value] });
  const forward = encodeFunctionData({
    abi: multicall,
    functionName: 'aggregate3Value',
    args: [[{ target: b, allowFailure: false, value: 7n * step, callData: '0x' }]],
  });
  return [
    [a, token, transfer(d, 5n * step), 0n],
    [a, d, '0x', 10n ** 14n * step],
    [c, net.w.multicall3 as Hex, forward, 7n * step],
    [d, token, transfer(a, 3n * step), 0n],
  ];
}

/** First accepted arrival of each delivery of a wallets-mode webhook, in arrival order. */
function delivered(type: HookType): Record<string, unknown>[] {
  const seen = new Set<string>();
  return receiver.received
    .filter((r) => {
      if (r.webhookId !== hooks[type].wallets || !r.accepted || seen.has(r.deliveryId))
        return false;
      seen.add(r.deliveryId);
      return true;
    })
    .flatMap(itemsOf);
}

/** The items the full-mode store queued for its webhook of `type` (never sent), in order. */
async function fullItems(type: HookType): Promise<Record<string, unknown>[]> {
  const { rows } = await full.db.query<{ items: Record<string, unknown>[] }>(
    `select items from webhook_deliveries where webhook_id = $1 and not removal order by seq`,
    [hooks[type].full],
  );
  return rows.flatMap((r) => r.items);
}

async function allDelivered(): Promise<void> {
  await waitFor(async () => {
    const { rows } = await net.db.query<{ n: string }>(
      `select count(*) as n from webhook_deliveries where status not in ('delivered', 'superseded')`,
    );
    return rows[0]?.n === '0';
  }, 'every delivery delivered');
}

beforeAll(async () => {
  net = await startWebhookDevnet('postgres', { mode: 'wallets' });
  receiver = await startReceiver(secrets);
  full = await createTestDatabase('postgres');
  await migrate(full.db, storeMigrations);
  const { record } = await createKeyStore(full.db).create({ name: 'full mode reference' });
  // The full-mode store indexes from genesis; the wallets-mode one starts following at the head.
  await indexBoth();
  const [a, b, , , e] = net.w.wallets as [Hex, Hex, Hex, Hex, Hex];
  // e moves only in the last tests (tracked, its backfill not run).
  watched = [a, b, e];
  for (const type of TYPES) {
    const spec = { url: receiver.url, type, addresses: watched };
    const mine = await insertWebhook(net.db, { keyId: net.keyId, ...spec });
    const theirs = await insertWebhook(full.db, { keyId: record.id, ...spec });
    secrets.set(mine.id, mine.secret);
    hooks[type] = { wallets: mine.id, full: theirs.id };
  }
  // One block per batch (at the head), then a batch of several blocks (after a pause).
  await play(activity(1n));
  await indexBoth();
  await play(activity(2n));
  await indexBoth(50);
  net.dispatcher({});
  await allDelivered();
}, 240_000);

afterAll(async () => {
  await net?.close();
  await full?.drop();
  await receiver?.close();
});

describe('webhooks of a wallets-mode chain for addresses it does not track', () => {
  it('deliver every type, with items equal to what full mode delivers', async () => {
    for (const type of TYPES) {
      const items = delivered(type);
      expect(items.length, type).toBeGreaterThan(3);
      expect(items, type).toEqual(await fullItems(type));
    }
  });

  it('balances: amount_before/after equal the node at the block before and at the block', async () => {
    const items = delivered('balances');
    const [, b] = watched as [Hex, Hex];
    const assets = new Set(items.map((i) => (i.asset as { token_address: string }).token_address));
    expect(assets).toEqual(new Set(['native', net.w.erc20[0]]));
    // b's only moves are the internal transfers: its native items come from the call traces.
    expect(items.filter((i) => i.subscribed_address === b).length).toBe(2);
    for (const item of items) {
      const asset = (item.asset as { token_address: string }).token_address;
      const block = BigInt(item.block_number as number);
      const wallet = item.subscribed_address as string;
      expect(item.amount_after).toBe(String(await net.balanceAt(wallet, asset, block)));
      expect(item.amount_before).toBe(String(await net.balanceAt(wallet, asset, block - 1n)));
    }
  });

  it('activities: an internal native transfer through a contract carries its transaction', () => {
    const [, b, c] = net.w.wallets as [Hex, Hex, Hex];
    const internal = delivered('activities').filter((i) => i.address === b);
    expect(internal.map((i) => [i.type, i.asset_type, i.value, i.tx_from, i.tx_to])).toEqual([
      ['receive', 'native', '7', c, net.w.multicall3],
      ['receive', 'native', '14', c, net.w.multicall3],
    ]);
  });

  it('leave the addresses untracked, with no stored rows', async () => {
    const count = async (sql: string) =>
      Number((await net.db.query<{ n: string }>(sql, [watched])).rows[0]?.n);
    expect(await count(`select count(*) as n from tracked_wallets where wallet = any($1)`)).toBe(0);
    for (const table of ['activity', 'native_balances', 'erc20_balances']) {
      expect(await count(`select count(*) as n from ${table} where wallet = any($1)`), table).toBe(
        0,
      );
    }
    expect(
      await count(
        `select count(*) as n from transactions where from_address = any($1) or to_address = any($1)`,
      ),
    ).toBe(0);
    // The full-mode store has them (the reference is not empty).
    const { rows } = await full.db.query<{ n: string }>(
      `select count(*) as n from activity where wallet = any($1) and block_number > 0`,
      [watched],
    );
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
  });

  it('after a reorg sends removed items, then the new branch as full mode has it', async () => {
    const [a, , , d] = net.w.wallets as [Hex, Hex, Hex, Hex];
    const before = delivered('activities').length;
    const snap = await rpcCall<string>(net.anvil.rpcUrl, 'evm_snapshot');
    await play([[a, d, '0x', 51n]]);
    await indexBoth();
    await allDelivered();
    await rpcCall(net.anvil.rpcUrl, 'evm_revert', [snap]);
    await play([
      [a, d, '0x', 52n],
      [a, d, '0x', 53n],
    ]);
    await indexBoth();
    await allDelivered();
    const items = delivered('activities').slice(before);
    expect(items.map((i) => [i.value, i.removed ?? false])).toEqual([
      ['51', false],
      ['51', true],
      ['52', false],
      ['53', false],
    ]);
    expect({ ...items[1], removed: undefined }).toEqual({ ...items[0], removed: undefined });
    // The full-mode store dropped its unsent first branch; its new branch is the same.
    expect(items.slice(2)).toEqual((await fullItems('activities')).slice(-2));
  });

  it('a watched wallet handed over before its backfill ran gets its balances from the node', async () => {
    const [, , , d, e] = net.w.wallets as [Hex, Hex, Hex, Hex, Hex];
    // Tracked by a read, handed over at the next batch; its backfill cannot spend an RPC call.
    const stalled = { rpcPerSecond: 0.001 };
    await net.get(`/v1/evm/balances/${e}?chain_ids=31337`);
    await net.index(1, stalled);
    const status = async () =>
      (
        await net.db.query<{ status: string; handover_block: string | null }>(
          `select status, handover_block from tracked_wallets where wallet = $1`,
          [e],
        )
      ).rows[0];
    expect((await status())?.handover_block).not.toBeNull();
    const seen = Object.fromEntries(TYPES.map((t) => [t, delivered(t).length]));
    const fullSeen = Object.fromEntries(
      await Promise.all(TYPES.map(async (t) => [t, (await fullItems(t)).length] as const)),
    );
    const transfer = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [d, 4n] });
    await play([
      [e, net.w.erc20[0] as Hex, transfer, 0n],
      [e, d, '0x', 10n ** 13n],
    ]);
    await indexFull();
    await net.index(1, stalled);
    await allDelivered();
    for (const type of TYPES) {
      const items = delivered(type).slice(seen[type]);
      expect(items.length, type).toBeGreaterThan(0);
      expect(items, type).toEqual((await fullItems(type)).slice(fullSeen[type]));
    }
    for (const item of delivered('balances').slice(seen.balances)) {
      const asset = (item.asset as { token_address: string }).token_address;
      const block = BigInt(item.block_number as number);
      expect(item.amount_after).toBe(String(await net.balanceAt(e, asset, block)));
      expect(item.amount_before).toBe(String(await net.balanceAt(e, asset, block - 1n)));
    }
    // Still not backfilled, and the batches kept its rows.
    expect((await status())?.status).not.toBe('ready');
    const { rows } = await net.db.query<{ n: string }>(
      `select count(*) as n from activity where wallet = $1`,
      [e],
    );
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
  });

  it('a read of one of them still starts its backfill', async () => {
    const [a] = watched as [Hex];
    const page = await net.get(`/v1/evm/balances/${a}?chain_ids=31337`);
    expect(page.warnings).toEqual([
      expect.objectContaining({ code: 'WALLET_BACKFILL_IN_PROGRESS', chain_ids: [31337] }),
    ]);
    const { rows } = await net.db.query<{ status: string; handover_block: string | null }>(
      `select status, handover_block from tracked_wallets where wallet = $1`,
      [a],
    );
    expect(rows).toEqual([{ status: 'pending', handover_block: null }]);
  });
});
