/**
 * NFT metadata fetch throughput: the worker's guarded path (SSRF-checked lookup, size/time caps,
 * JSON parse + normalisation) against plain `fetch` + `JSON.parse` (what a naive fetcher does),
 * over the same local server, in one run. Run: `npx tsx bench/nft-fetch-bench.ts`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { normalizeGateways } from '../src/nft/gateways.js';
import { forEachConcurrent } from '../src/nft/keyed-limiter.js';
import { loadMetadata } from '../src/nft/load-metadata.js';
import { createSafeFetcher } from '../src/nft/safe-fetch.js';

const docs = Number(process.env.DOCS ?? 5_000);
const concurrency = Number(process.env.CONCURRENCY ?? 16);

function document(id: number): string {
  return JSON.stringify({
    name: `Bench #${id}`,
    description: 'A benchmark token with a typical OpenSea-style document.',
    image: `ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/${id}.png`,
    external_url: `https://bench.example/${id}`,
    attributes: Array.from({ length: 8 }, (_, i) => ({
      trait_type: `Trait ${i}`,
      value: (id * 7 + i) % 13,
    })),
  });
}

const server = http.createServer((req, res) => {
  const id = Number((req.url ?? '/0').slice(1));
  res.setHeader('content-type', 'application/json');
  res.end(document(id));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const ids = Array.from({ length: docs }, (_, i) => i + 1);

async function time(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return docs / ((performance.now() - started) / 1000);
}

const fetcher = createSafeFetcher({ allowHosts: [new URL(origin).host] });
const gateways = normalizeGateways();
const guarded = () =>
  forEachConcurrent(ids, concurrency, async (id) => {
    const meta = await loadMetadata(`${origin}/${id}`, { fetcher, gateways });
    if (meta.name !== `Bench #${id}`) throw new Error('bad document');
  });
const naive = () =>
  forEachConcurrent(ids, concurrency, async (id) => {
    const doc = (await (await fetch(`${origin}/${id}`)).json()) as { name: string };
    if (doc.name !== `Bench #${id}`) throw new Error('bad document');
  });

await guarded(); // warm up both paths (JIT, keep-alive sockets)
await naive();
const results = { guarded: 0, naive: 0 };
for (let round = 0; round < 3; round++) {
  results.guarded = Math.max(results.guarded, await time(guarded));
  results.naive = Math.max(results.naive, await time(naive));
}
fetcher.close();
server.close();
console.log(
  `NFT metadata documents/s (${docs} docs, ${concurrency} in flight, best of 3, loopback):`,
);
console.log(`  sluice guarded fetch + normalise : ${results.guarded.toFixed(0)}`);
console.log(`  plain fetch() + JSON.parse       : ${results.naive.toFixed(0)}`);
console.log(
  `  ratio                            : ${(results.guarded / results.naive).toFixed(2)}x`,
);
