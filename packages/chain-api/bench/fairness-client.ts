/**
 * One key's client in `bench:fairness`, in a process of its own (forked by fairness-bench.ts):
 * two keys are two customers, so the light key's latencies must not include the time the heavy
 * key's client spends reading its multi-megabyte answers on the same event loop. Runs one key
 * loop when told and reports its figures over IPC.
 */

import { type KeyLoop, runKeyLoop } from '../test/support/fairness-run.js';
import type { LoadFigures } from '../test/support/load-probe.js';

export interface ClientRun extends KeyLoop {
  type: 'run';
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
  const reply: ClientFigures = { type: 'figures', figures: await runKeyLoop(message) };
  process.send?.(reply);
});
