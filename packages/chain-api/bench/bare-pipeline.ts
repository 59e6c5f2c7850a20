/**
 * The practical limit for comparison: a bare ERC20-transfer pipeline with no derivation at all —
 * eth_getLogs over 25-block ranges filtered to the Transfer topic (3-topic logs), 4 ranges in
 * flight, words sliced by hand, COPY into one PostgreSQL table, one transaction per range.
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { TOPIC } from '../src/decode/index.js';

interface Log {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  logIndex: string;
  transactionHash: string;
}

async function getLogs(url: string, from: number, to: number): Promise<Log[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_getLogs',
          params: [
            {
              fromBlock: `0x${from.toString(16)}`,
              toBlock: `0x${to.toString(16)}`,
              topics: [TOPIC.transfer],
            },
          ],
        }),
      });
      const body = (await res.json()) as { result: Log[] };
      return body.result;
    } catch (error) {
      if (attempt > 5) throw error;
    }
  }
}

/** Indexes blocks 0..head into `table` of `pool`'s database; returns transfers written. */
export async function runBarePipeline(
  pool: pg.Pool,
  url: string,
  head: number,
  table: string,
): Promise<number> {
  await pool.query(`create table ${table} (block_number bigint, log_index int, tx_hash text, token text,
    from_address text, to_address text, value numeric(78,0))`);
  const ranges: [number, number][] = [];
  for (let b = 0; b <= head; b += 25) ranges.push([b, Math.min(head, b + 24)]);
  let written = 0;
  let next = 0;
  const inflight: Promise<Log[]>[] = [];
  const fill = () => {
    while (inflight.length < 4 && next < ranges.length) {
      const [f, t] = ranges[next++] as [number, number];
      inflight.push(getLogs(url, f, t));
    }
  };
  fill();
  while (inflight.length > 0) {
    const logs = await (inflight.shift() as Promise<Log[]>);
    fill();
    const lines: string[] = [];
    for (const l of logs) {
      if (l.topics.length !== 3) continue; // ERC721 transfers have 4 topics
      lines.push(
        `${BigInt(l.blockNumber)}\t${Number(l.logIndex)}\t${l.transactionHash}\t${l.address}\t0x${l.topics[1]?.slice(26)}\t0x${l.topics[2]?.slice(26)}\t${BigInt(l.data)}\n`,
      );
    }
    const client = await pool.connect();
    try {
      await client.query('begin');
      await new Promise<void>((resolve, reject) => {
        const stream = client.query(copyFrom(`copy ${table} from stdin`));
        stream.on('finish', resolve);
        stream.on('error', reject);
        stream.end(lines.join(''));
      });
      await client.query('commit');
    } finally {
      client.release();
    }
    written += lines.length;
  }
  return written;
}
