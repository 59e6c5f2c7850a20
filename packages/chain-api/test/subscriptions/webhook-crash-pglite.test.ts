import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { deployWorkload, playRandomOps, type Workload } from '../indexer/random-workload.js';
import { type CliProcess, startCli } from '../support/cli-process.js';
import { startReceiver, type TestReceiver, waitFor } from '../support/webhooks.js';

// `serve` on the embedded PGlite store (indexer, API and dispatcher in one process, one data
// folder) killed with SIGKILL while a delivery is in flight: restarted on the same folder it
// loses no committed delivery, sends again only under the same delivery id, and goes on
// delivering the chain's new events.
const run = promisify(execFile);
const cliPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli.ts');
const BASE = '/beta/evm/subscriptions/webhooks';
const SECRET = 'whsec_pglite-crash-test-secret-0123456789';

let anvil: AnvilInstance;
let w: Workload;
let receiver: TestReceiver;
let dataDir: string;
let key: string;
const secrets = new Map<string, string>();
const running: CliProcess[] = [];

async function startServe(): Promise<CliProcess> {
  const serve = await startCli(
    ['serve'],
    {
      DATA_DIR: dataDir,
      API_KEYS: '',
      RPC_URL_31337: anvil.rpcUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100',
      WEBHOOK_POLL_MS: '20',
    },
    150_000,
  );
  running.push(serve);
  return serve;
}

async function blockNumber(): Promise<bigint> {
  const res = await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  return BigInt(((await res.json()) as { result: string }).result);
}

async function api(
  serve: CliProcess,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${serve.url}${path}`, {
    method,
    headers: {
      'x-sim-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The webhook's whole delivery log, oldest first. */
async function deliveryLog(serve: CliProcess, id: string) {
  const out: { id: string; status: string }[] = [];
  let offset: number | string | null = 0;
  while (offset !== null) {
    const page = await api(serve, 'GET', `${BASE}/${id}/deliveries?limit=100&offset=${offset}`);
    expect(page.status).toBe(200);
    out.push(...(page.json.deliveries as { id: string; status: string }[]));
    offset = page.json.next_offset as number | string | null;
  }
  return out.reverse();
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 6, 43);
  receiver = await startReceiver(secrets);
  dataDir = mkdtempSync(join(tmpdir(), 'sluice-pglite-crash-'));
  const created = await run(process.execPath, ['--import', 'tsx', cliPath, 'keys', 'create'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir },
    timeout: 150_000,
  });
  key = /sluice_[A-Za-z0-9_-]{32,}/.exec(created.stdout)?.[0] ?? '';
  expect(key).not.toBe('');
}, 240_000);

afterAll(async () => {
  for (const serve of running) await serve.stop().catch(() => {});
  await receiver?.close();
  await anvil?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('serve on PGlite killed with SIGKILL mid-delivery', () => {
  it('restarts on the same folder and loses nothing; duplicates only under one delivery id', async () => {
    const first = await startServe();
    const created = await api(first, 'POST', BASE, {
      name: 'pglite crash',
      url: receiver.url,
      type: 'transactions',
      addresses: w.wallets.slice(0, 4),
      secret: SECRET,
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = String(created.json.id);
    secrets.set(id, SECRET);
    const since = await blockNumber();

    receiver.delayMs = 150;
    await playRandomOps(anvil.rpcUrl, w, { seed: 61, ops: 24, perBlock: 2 });
    await waitFor(() => receiver.received.length >= 2, 'some deliveries', 120_000);
    // Hold the next answers so the kill lands while one is in flight.
    receiver.delayMs = 5_000;
    await waitFor(() => receiver.inFlight > 0, 'a delivery in flight', 120_000);
    first.child.kill('SIGKILL');
    await first.stop();
    receiver.delayMs = 0;

    const second = await startServe();
    // New events after the restart are delivered too.
    await playRandomOps(anvil.rpcUrl, w, { seed: 62, ops: 12, perBlock: 2 });
    const head = await blockNumber();
    let log: { id: string; status: string }[] = [];
    await waitFor(
      async () => {
        log = await deliveryLog(second, id);
        const lastBlock = receiver.received
          .filter((r) => r.accepted)
          .flatMap((r) => (r.body.transactions ?? []).map((t) => BigInt(String(t.block_number))));
        return (
          log.length > 0 &&
          log.every((d) => d.status === 'delivered') &&
          lastBlock.some((b) => b >= head - 2n)
        );
      },
      'every delivery delivered after the restart',
      150_000,
    );

    expect(receiver.badSignatures).toBe(0);
    // The kill hit a delivery in flight: it went out again, same id, a later retry index.
    expect(receiver.received.some((r) => r.retryIndex > 0)).toBe(true);
    const accepted = receiver.received.filter((r) => r.accepted);
    const got = new Set(accepted.map((r) => r.deliveryId));
    for (const d of log) expect(got.has(d.id), `delivery ${d.id} arrived`).toBe(true);
    // First arrivals follow the log's (chain) order.
    expect([...new Set(accepted.map((r) => r.deliveryId))]).toEqual(log.map((d) => d.id));
    // A delivery id always carries the same body; no transaction went out under two ids.
    const bodyOf = new Map<string, string>();
    const idOfTx = new Map<string, string>();
    for (const r of receiver.received) {
      const seen = bodyOf.get(r.deliveryId);
      if (seen !== undefined) expect(r.raw).toBe(seen);
      bodyOf.set(r.deliveryId, r.raw);
      for (const tx of r.body.transactions ?? []) {
        const hash = String(tx.hash);
        expect(idOfTx.get(hash) ?? r.deliveryId).toBe(r.deliveryId);
        idOfTx.set(hash, r.deliveryId);
      }
    }
    // Every transaction of a watched wallet after the webhook existed is in a delivery: the
    // API (same store) lists them; each must have been delivered.
    let checked = 0;
    for (const wallet of w.wallets.slice(0, 4)) {
      const page = await api(second, 'GET', `/v1/evm/transactions/${wallet}?limit=100`);
      expect(page.status).toBe(200);
      for (const tx of page.json.transactions as { hash: string; block_number: number }[]) {
        if (BigInt(tx.block_number) <= since) continue;
        checked++;
        expect(idOfTx.has(tx.hash), `transaction ${tx.hash} delivered`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(10);
  }, 420_000);
});
