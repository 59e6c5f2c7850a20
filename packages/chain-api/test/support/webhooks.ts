import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Queryable } from '@sluice/db';
import { verify } from '@sluice/webhooks/methods';

/** A webhook row as the management API would create it (tests insert them directly). */
export interface TestWebhook {
  id: string;
  secret: string;
}

/**
 * Inserts a webhook and its address list straight into the store (the management endpoints are
 * another part of the API).
 */
export async function insertWebhook(
  db: Queryable,
  hook: {
    keyId: string;
    url: string;
    type: 'balances' | 'activities' | 'transactions';
    addresses: readonly string[];
    chainIds?: number[] | null;
    transactionType?: 'sender' | 'receiver';
    counterparty?: string;
    activityType?: string;
    assetType?: string;
    tokenAddress?: string;
    confirmations?: number;
  },
): Promise<TestWebhook> {
  const id = randomUUID();
  const secret = randomBytes(24).toString('hex');
  await db.query(
    `insert into webhooks (id, key_id, name, url, type, chain_ids, transaction_type, counterparty,
                           activity_type, asset_type, token_address, confirmations, secret)
     values ($1, $2, $3, $4, $5, $6::bigint[], $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      hook.keyId,
      `test ${hook.type}`,
      hook.url,
      hook.type,
      hook.chainIds ?? null,
      hook.transactionType ?? null,
      hook.counterparty?.toLowerCase() ?? null,
      hook.activityType ?? null,
      hook.assetType ?? null,
      hook.tokenAddress?.toLowerCase() ?? null,
      hook.confirmations ?? 0,
      secret,
    ],
  );
  await db.query(
    `insert into webhook_addresses (webhook_id, address) select $1, unnest($2::text[])`,
    [id, hook.addresses.map((a) => a.toLowerCase())],
  );
  return { id, secret };
}

/** One request the receiver got. */
export interface Received {
  webhookId: string;
  deliveryId: string;
  retryIndex: number;
  chainId: number;
  type: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, Record<string, unknown>[]>;
  /** Answered 2xx. */
  accepted: boolean;
}

/** A receiver built on `@sluice/webhooks` `verify`: refuses (401) any delivery whose signature fails. */
export interface TestReceiver {
  url: string;
  port: number;
  /** Requests with a valid signature, in arrival order. */
  received: Received[];
  /** Requests whose signature did not verify. */
  badSignatures: number;
  /** Status to answer (default 200); or a function of the request. */
  answer: number | ((r: Received) => number);
  /** Delay before answering, ms. */
  delayMs: number;
  /** Verified deliveries received and not yet answered. */
  inFlight: number;
  close(): Promise<void>;
}

/**
 * Starts an HTTP receiver on 127.0.0.1 that verifies every delivery with the webhook's secret
 * (looked up by `dune-webhook-id` in `secrets`).
 */
export async function startReceiver(secrets: Map<string, string>): Promise<TestReceiver> {
  const state: TestReceiver = {
    url: '',
    port: 0,
    received: [],
    badSignatures: 0,
    answer: 200,
    delayMs: 0,
    inFlight: 0,
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const webhookId = String(req.headers['dune-webhook-id'] ?? '');
        const secret = secrets.get(webhookId);
        const signature = String(req.headers['dune-webhook-signature'] ?? '');
        if (!secret || !(await verify(secret, raw, signature))) {
          state.badSignatures++;
          res.writeHead(401).end();
          return;
        }
        const r: Received = {
          webhookId,
          deliveryId: String(req.headers['dune-webhook-delivery-id']),
          retryIndex: Number(req.headers['dune-webhook-retry-index']),
          chainId: Number(req.headers['dune-webhook-chain-id']),
          type: String(req.headers['dune-webhook-type']),
          headers: req.headers,
          raw,
          body: JSON.parse(raw) as Record<string, Record<string, unknown>[]>,
          accepted: false,
        };
        state.inFlight++;
        if (state.delayMs > 0) await new Promise((s) => setTimeout(s, state.delayMs));
        state.inFlight--;
        const status = typeof state.answer === 'function' ? state.answer(r) : state.answer;
        r.accepted = status >= 200 && status < 300;
        state.received.push(r);
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.port = typeof address === 'object' && address ? address.port : 0;
  state.url = `http://127.0.0.1:${state.port}/hook`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** The items of a received delivery, whatever its type. */
export function itemsOf(r: Received): Record<string, unknown>[] {
  return r.body.balance_changes ?? r.body.activities ?? r.body.transactions ?? [];
}

/** Polls `cond` until it holds (generous: the machine is shared). */
export async function waitFor(
  cond: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
