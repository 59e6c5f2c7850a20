// CPU pinning for the HTTP benchmarks: each receiver on one core, the load generator (this
// process) on another, so a receiver's figures are its own and not a share of a core it
// fights the load generator for. Needs Linux `taskset` and at least 2 cores; without them
// nothing is pinned and the benchmark runs as before.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Pinning {
  /** Command and arguments that start `argv` on the receiver core (or unchanged). */
  receiverCommand(argv: string[]): [string, string[]];
  /** Pins this process (all its threads) to the load-generator core. */
  pinLoadGenerator(): void;
  /** Gives this process all cores back. */
  release(): void;
  /** For the report, e.g. "receiver on CPU 0, autocannon on CPU 1". */
  readonly description: string;
}

function tasksetWorks(): boolean {
  if (process.platform !== 'linux') return false;
  const probe = spawnSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  return probe.status === 0;
}

export function createPinning(): Pinning {
  const cores = availableParallelism();
  if (process.env.BENCH_PIN === '0' || cores < 2 || !tasksetWorks()) {
    return {
      receiverCommand: (argv) => [argv[0] as string, argv.slice(1)],
      pinLoadGenerator: () => {},
      release: () => {},
      description:
        process.env.BENCH_PIN === '0' ? 'not pinned (BENCH_PIN=0)' : 'not pinned (no taskset)',
    };
  }
  const receiverCore = '0';
  const loadCore = '1';
  const setSelf = (list: string) =>
    spawnSync('taskset', ['-a', '-p', '-c', list, String(process.pid)], { stdio: 'ignore' });
  return {
    receiverCommand: (argv) => ['taskset', ['-c', receiverCore, ...argv]],
    pinLoadGenerator: () => void setSelf(loadCore),
    release: () => void setSelf(`0-${cores - 1}`),
    description: `receiver on CPU ${receiverCore}, load generator on CPU ${loadCore}`,
  };
}
