import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { AnvilNotFoundError, AnvilStartError } from './errors.js';

const ANVIL_PACKAGE = '@foundry-rs/anvil-linux-amd64';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
/** Where anvil is looked for: the ANVIL_PATH and PATH settings (from the configuration). */
export interface AnvilSearch {
  ANVIL_PATH?: string | undefined;
  PATH?: string | undefined;
}

/**
 * Locates the anvil binary: `ANVIL_PATH` if set, else the one shipped by the npm package
 * `@foundry-rs/anvil-linux-amd64`, else `anvil` on PATH.
 *
 * @example
 * const bin = findAnvilBinary(); // '/repo/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil'
 */
export function findAnvilBinary(env: AnvilSearch = {}, npmPackage: string = ANVIL_PACKAGE): string {
  const tried: string[] = [];
  const explicit = env.ANVIL_PATH;
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    tried.push(`ANVIL_PATH=${explicit} (not an executable file)`);
  }
  try {
    const require = createRequire(import.meta.url);
    const pkgJson = require.resolve(`${npmPackage}/package.json`);
    const bin = join(dirname(pkgJson), 'bin', 'anvil');
    if (isExecutable(bin)) return bin;
    tried.push(`${bin} (not executable)`);
  } catch {
    tried.push(`${npmPackage} (not installed)`);
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'anvil');
    if (isExecutable(candidate)) return candidate;
  }
  tried.push(`anvil on PATH (${env.PATH ? 'not found' : 'PATH is empty'})`);
  throw new AnvilNotFoundError(`tried: ${tried.join('; ')}`);
}

export interface StartAnvilOptions {
  /** TCP port on 127.0.0.1; a free port is picked when omitted or 0. */
  port?: number;
  /** Seconds between blocks; omitted = automine (one block per transaction). */
  blockTime?: number;
  /** Genesis timestamp (unix seconds), e.g. to play a scenario that spans past days. */
  genesisTimestamp?: number;
  /** Chain id; default 31337. */
  chainId?: number;
  /** Extra command-line arguments passed to anvil as-is. */
  args?: string[];
  /** Path of the anvil binary; default {@link findAnvilBinary}. */
  binary?: string;
  /** Keep anvil's own log output (otherwise `--quiet`); it is kept in memory, see `output()`. */
  verbose?: boolean;
  /** How long to wait for JSON-RPC to answer; default 30 s. */
  timeoutMs?: number;
  /**
   * How long `stop()` lets anvil exit on its own before SIGKILL; default 3 s. Raise it with
   * `--dump-state`, which anvil writes on exit.
   */
  stopGraceMs?: number;
}

export interface AnvilInstance {
  rpcUrl: string;
  port: number;
  /** Process id of anvil's watchdog shell (its process group holds anvil). */
  pid: number;
  /** The last ~64 KiB anvil wrote to stdout/stderr. */
  output(): string;
  /** Stops anvil and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Runs anvil under a tiny shell watchdog that kills it as soon as our end of its stdin closes,
 * which happens however this process dies (even SIGKILL), so anvil never outlives us.
 * fd 3 keeps the original stdin because background jobs of a non-interactive shell get /dev/null.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$0" "$@" 3<&- </dev/null &',
  'pid=$!',
  '(read -r _ <&3; kill -TERM "$pid" 2>/dev/null) >/dev/null 2>&1 &',
  'exec 3<&-',
  'wait "$pid"',
].join('\n');

const OUTPUT_LIMIT = 64 * 1024;

/** Asks the OS for a free TCP port on 127.0.0.1. */
export async function getFreePort(): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function rpcAnswers(rpcUrl: string): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    if (!res.ok) return false;
    const body = (await res.json()) as { result?: unknown };
    return typeof body.result === 'string';
  } catch {
    return false;
  }
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
}

async function launch(
  binary: string,
  port: number,
  opts: StartAnvilOptions,
): Promise<AnvilInstance | 'port-in-use'> {
  const args = ['--host', '127.0.0.1', '--port', String(port)];
  if (!opts.verbose) args.push('--quiet');
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  if (opts.genesisTimestamp !== undefined) args.push('--timestamp', String(opts.genesisTimestamp));
  if (opts.chainId !== undefined) args.push('--chain-id', String(opts.chainId));
  args.push(...(opts.args ?? []));

  const child = spawn('/bin/sh', ['-c', WATCHDOG, binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // own process group, so stop() can take anvil and the watchdog down together
  });
  live.add(child);
  installExitHook();
  // Neither the child nor its pipes keep the event loop alive; the watchdog cleans up.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }

  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  child.stdin?.on('error', () => {}); // EPIPE once the shell is gone

  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      live.delete(child);
      child.stdin?.destroy();
      resolve();
    });
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      child.stdin?.end();
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), opts.stopGraceMs ?? 3000);
      await exited;
      clearTimeout(timer);
      // The watchdog's reader may linger a moment; make sure the whole group is gone.
      killGroup(child, 'SIGKILL');
    })();
    return stopping;
  };

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  while (Date.now() < deadline) {
    if (spawnError) throw new AnvilStartError(`cannot spawn anvil: ${spawnError.message}`);
    if (hasExited) {
      if (/address already in use/i.test(output)) return 'port-in-use';
      throw new AnvilStartError(
        `anvil exited with code ${child.exitCode} before answering JSON-RPC`,
        output.trim(),
      );
    }
    if (await rpcAnswers(rpcUrl)) {
      return { rpcUrl, port, pid: child.pid ?? -1, output: () => output, stop };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  await stop();
  throw new AnvilStartError(
    `anvil did not answer JSON-RPC on ${rpcUrl} within ${opts.timeoutMs ?? 30_000} ms`,
    output.trim(),
  );
}

/**
 * Starts anvil on 127.0.0.1 and resolves once its JSON-RPC answers. The process is killed by
 * `stop()`, on process exit, and, through a watchdog, even if this process is SIGKILLed.
 *
 * @example
 * import { createPublicClient, http } from 'viem';
 * const anvil = await startAnvil();
 * const client = createPublicClient({ transport: http(anvil.rpcUrl) });
 * await anvil.stop();
 */
export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const binary = opts.binary ?? findAnvilBinary();
  if (opts.port !== undefined && opts.port !== 0) {
    if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
      throw new AnvilStartError(`invalid port ${opts.port}: expected an integer 0-65535`);
    }
    // Check first: while a new anvil fails to bind, whatever already listens there would answer.
    if (!(await portIsFree(opts.port))) {
      throw new AnvilStartError(`port ${opts.port} is already in use`);
    }
    const result = await launch(binary, opts.port, opts);
    if (result === 'port-in-use') {
      throw new AnvilStartError(`port ${opts.port} is already in use`);
    }
    return result;
  }
  // A free port can be taken by someone else before anvil binds it; retry a few times.
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = await launch(binary, await getFreePort(), opts);
    if (result !== 'port-in-use') return result;
  }
  throw new AnvilStartError('could not find a free port for anvil after 5 attempts');
}
