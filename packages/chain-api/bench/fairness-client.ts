/**
 * One key's client in `bench:fairness`, in a process of its own (forked by fairness-bench.ts):
 * two keys are two customers, so the light key's latencies must not include the time the heavy
 * key's client spends reading its multi-megabyte answers on the same event loop. Runs `loop` once
 * when told and reports its figures over IPC.
 */

import { type LoadFigures, loop } from '../test/support/load-probe.js';

export interface ClientRun {
  type: 'run';
  url: string;
  key: string;
  paths: string[];
  connections: number;
  durationMs: number;
  /** Wait before the first request (the light key starts once the heavy one fills its queues). */
  delayMs: number;
}

export interface ClientFigures {
  type: 'figures';
  figures: LoadFigures;
}

process.on('message', async (message: ClientRun | { type: 'exit' }) => {
  if (message.type === 'exit') {
    process.disconnect?.();
    return;
  }
  const end = Date.now() + message.durationMs;
  await new Promise((resolve) => setTimeout(resolve, message.delayMs));
  const figures = await loop(message.url, message.key, message.paths, message.connections, () => {
    return Date.now() >= end;
  });
  const reply: ClientFigures = { type: 'figures', figures };
  process.send?.(reply);
});
