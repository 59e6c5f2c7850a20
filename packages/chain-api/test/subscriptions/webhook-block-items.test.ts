import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexOnce } from '../../src/ingest/index.js';
import { send, waitReceipt } from '../indexer/random-workload.js';
import {
  silent,
  startWebhookDevnet,
  TOKEN_LOGO,
  type WebhookDevnet,
} from '../support/webhook-devnet.js';
import {
  insertWebhook,
  itemsOf,
  startReceiver,
  type TestReceiver,
  waitFor,
} from '../support/webhooks.js';

// One indexer batch covering several blocks (the indexer paused while blocks were mined, as after
// a pause or in backfill): every balances item still equals the node at its block and the block
// before, one item per block in which the pair changed. Items carry the token metadata (logos) the
// read endpoints show for the same token.
let net: WebhookDevnet;
let receiver: TestReceiver;
const secrets = new Map<string, string>();
let hookId = '';
let activityHook = '';
let fromBlock = 0n;
let toBlock = 0n;
const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

beforeAll(async () => {
  net = await startWebhookDevnet('postgres', { logos: true });
  receiver = await startReceiver(secrets);
  await net.index();
  const [a, b, c] = net.w.wallets as [Hex, Hex, Hex];
  const token = net.w.erc20[0] as Hex;
  const hook = await insertWebhook(net.db, {
    keyId: net.keyId,
    url: receiver.url,
    type: 'balances',
    addresses: [a],
  });
  secrets.set(hook.id, hook.secret);
  hookId = hook.id;
  const activities = await insertWebhook(net.db, {
    keyId: net.keyId,
    url: receiver.url,
    type: 'activities',
    addresses: [a],
  });
  secrets.set(activities.id, activities.secret);
  activityHook = activities.id;
  fromBlock = (await net.head()) + 1n;
  // Six blocks (automine: one transaction each), a's native and token balances moving in each.
  const transfer = (to: Hex, value: bigint) =>
    encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, value] });
  const txs: [Hex, Hex, Hex, bigint][] = [
    [a, b, '0x', 10n ** 15n],
    [a, token, transfer(b, 5n), 0n],
    [c, a, '0x', 3n * 10n ** 14n],
    [b, token, transfer(a, 7n), 0n],
    [a, token, transfer(c, 2n), 0n],
    [a, c, '0x', 1n],
  ];
  for (const [from, to, data, value] of txs)
    await waitReceipt(net.anvil.rpcUrl, await send(net.anvil.rpcUrl, from, to, data, value));
  toBlock = await net.head();
  // The indexer "restarts": all six blocks in one batch.
  const [stats] = await indexOnce({
    db: net.db,
    chains: [net.chain],
    log: silent,
    batchSize: 50,
    maxBatchSize: 50,
  });
  expect(stats?.batches).toBe(1);
  net.dispatcher({});
  await waitFor(async () => {
    const { rows } = await net.db.query<{ n: string }>(
      `select count(*) as n from webhook_deliveries where status <> 'delivered'`,
    );
    return rows[0]?.n === '0';
  }, 'every delivery delivered');
}, 120_000);

afterAll(async () => {
  await net?.close();
  await receiver?.close();
});

describe('balances items of a batch spanning several blocks', () => {
  it('have one item per changed block, each equal to the node at block-1 and block', async () => {
    const items = receiver.received
      .filter((r) => r.webhookId === hookId && r.accepted)
      .flatMap(itemsOf);
    const [a] = net.w.wallets as [string];
    for (const asset of ['native', net.w.erc20[0] as string]) {
      const mine = items.filter(
        (i) => (i.asset as { token_address: string }).token_address === asset,
      );
      const changed: number[] = [];
      for (let b = fromBlock; b <= toBlock; b++) {
        if ((await net.balanceAt(a, asset, b)) !== (await net.balanceAt(a, asset, b - 1n)))
          changed.push(Number(b));
      }
      expect(changed.length).toBeGreaterThan(2);
      expect(mine.map((i) => i.block_number)).toEqual(changed);
      for (const item of mine) {
        const block = BigInt(item.block_number as number);
        expect(item.amount_after).toBe(String(await net.balanceAt(a, asset, block)));
        expect(item.amount_before).toBe(String(await net.balanceAt(a, asset, block - 1n)));
        const { rows } = await net.db.query<{ hash: string }>(
          `select hash from transactions where chain_id = 31337 and block_number = $1`,
          [block.toString()],
        );
        expect(rows.map((r) => r.hash)).toContain(item.transaction_hash);
      }
    }
  });

  it('carry the logos the balances and activity endpoints show', async () => {
    const [a] = net.w.wallets as [string];
    const balances = receiver.received
      .filter((r) => r.webhookId === hookId && r.accepted)
      .flatMap(itemsOf);
    const endpoint = (await net.get(`/v1/evm/balances/${a}?chain_ids=31337&metadata=logo`))
      .balances as { address: string; token_metadata?: { logo?: string } }[];
    const logoAt = new Map(endpoint.map((b) => [b.address, b.token_metadata?.logo ?? null]));
    expect(logoAt.get(net.w.erc20[0] as string)).toBe(TOKEN_LOGO);
    for (const item of balances) {
      const asset = item.asset as { token_address: string; token_metadata: { logo: unknown } };
      expect(asset.token_metadata.logo).toBe(logoAt.get(asset.token_address) ?? null);
    }
    const delivered = receiver.received
      .filter((r) => r.webhookId === activityHook && r.accepted)
      .flatMap(itemsOf);
    const activity = (
      (await net.get(`/v1/evm/activity/${a}?chain_ids=31337&limit=100`)).activity as Record<
        string,
        unknown
      >[]
    )
      .filter((i) => BigInt(i.block_number as number) >= fromBlock)
      .reverse();
    expect(delivered.map((i) => i.token_metadata)).toEqual(activity.map((i) => i.token_metadata));
    expect(
      delivered.some((i) => (i.token_metadata as { logo?: string })?.logo === TOKEN_LOGO),
    ).toBe(true);
  });
});
