// The Web middleware on the runtimes users pick it for: Deno, Bun and workerd (through
// miniflare), each a real binary from npm serving real HTTP on loopback. The same bundle
// (test/runtimes/worker-entry.ts) runs everywhere. A missing binary fails the run under CI=true
// and skips elsewhere.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendHttp } from './helpers/http-request.js';
import { independentSign } from './helpers/independent-sign.js';
import {
  locateRuntime,
  missingRuntimeMessage,
  type RuntimeName,
} from './helpers/runtime-binaries.js';

const SECRET = randomBytes(16).toString('hex');
const PATH = '/api/hosting/webhooks';
const dir = mkdtempSync(join(tmpdir(), 'sluice-webhooks-runtimes-'));
const appFile = join(dir, 'app.mjs');
let bundled: Promise<void> | undefined;

/** One ES module with the app and @sluice/webhooks in it, built once for all runtimes. */
function bundleApp(): Promise<void> {
  bundled ??= build({
    entryPoints: [fileURLToPath(new URL('./runtimes/worker-entry.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: appFile,
    define: { __WEBHOOK_SECRET__: JSON.stringify(SECRET) },
    logLevel: 'silent',
  }).then(() => undefined);
  return bundled;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  port: number;
  stop(): Promise<void>;
}

/** Spawns a runtime that prints `PORT <n>` once it listens. */
async function spawnServer(
  binary: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<Running> {
  const child: ChildProcess = spawn(binary, args, {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (data: Buffer) => {
      stdout += data.toString();
      const match = /PORT (\d+)/.exec(stdout);
      if (match) resolve(Number(match[1]));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${binary} exited with ${code}: ${stderr}`)));
  });
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const starters: Record<RuntimeName, (binary: string) => Promise<Running>> = {
  // Deno.serve(handler) calls handler(request, info): `info` must not be taken for `next`.
  deno: (binary) => {
    writeFileSync(
      join(dir, 'deno.mjs'),
      `import { middleware } from './app.mjs';
Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log('PORT ' + port) }, middleware);`,
    );
    return spawnServer(binary, ['run', '--allow-net', '--no-prompt', 'deno.mjs'], {
      DENO_DIR: join(dir, 'deno-cache'),
      DENO_NO_UPDATE_CHECK: '1',
    });
  },
  // Bun.serve calls fetch(request, server).
  bun: (binary) => {
    writeFileSync(
      join(dir, 'bun.mjs'),
      `import { middleware } from './app.mjs';
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: middleware });
console.log('PORT ' + server.port);`,
    );
    return spawnServer(binary, ['run', 'bun.mjs'], { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' });
  },
  // workerd calls fetch(request, env, ctx).
  workerd: async (binary) => {
    process.env.MINIFLARE_WORKERD_PATH = binary;
    const { Miniflare } = await import('miniflare');
    const mf = new Miniflare({
      modules: true,
      scriptPath: appFile,
      modulesRoot: dir,
      compatibilityDate: '2025-09-01',
      host: '127.0.0.1',
      port: 0,
    });
    const url = await mf.ready;
    return { port: Number(url.port), stop: () => mf.dispose() };
  },
};

function signed(name: string, body: string, id = `${name}-1`) {
  return {
    method: 'POST',
    path: PATH,
    headers: {
      'content-type': 'application/json',
      'x-provider-event': name,
      'x-provider-delivery': id,
      'x-hub-signature-256': independentSign(SECRET, body),
    },
    body,
  };
}

describe.each(['deno', 'bun', 'workerd'] as const)('Web middleware on %s', (name) => {
  const binary = locateRuntime(name);
  if (binary === undefined) {
    if (process.env.CI === 'true') {
      it('has its runtime binary', () => {
        throw new Error(missingRuntimeMessage(name));
      });
    } else {
      it.skip(`${missingRuntimeMessage(name)} (skipped outside CI)`, () => {});
    }
    return;
  }

  let server: Running;
  beforeAll(async () => {
    await bundleApp();
    server = await starters[name](binary);
  }, 60_000);
  afterAll(() => server?.stop());

  const push = JSON.stringify({ ref: 'refs/heads/main', commits: [], note: 'ünïcödé 🚀' });

  it('200 for a signed delivery, and the handler ran', async () => {
    const res = await sendHttp(server.port, signed('push', push));
    expect(res.status).toBe(200);
    expect(res.text).toBe('ok\n');
    const count = await sendHttp(server.port, { method: 'GET', path: '/count' });
    expect(JSON.parse(count.text).pushes).toBeGreaterThanOrEqual(1);
  });

  it('400 for a bad signature and for an empty one', async () => {
    for (const signature of [`sha256=${'0'.repeat(64)}`, '']) {
      const req = signed('push', push);
      const res = await sendHttp(server.port, {
        ...req,
        headers: { ...req.headers, 'x-hub-signature-256': signature },
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).error).toMatch(/signature does not match/);
    }
  });

  it('400 for a reserved event name', async () => {
    const res = await sendHttp(server.port, signed('error', push));
    expect(res.status).toBe(400);
  });

  // Just over the 64 KiB limit. A runtime that answers before the body is in closes the
  // connection; the client may then get a reset instead of the 413 (workerd does this now and
  // then), so each case gets a few tries and must show a 413 at least once, never anything else.
  const big = JSON.stringify({ ref: 'x'.repeat(70 * 1024) });
  const tooLarge = async (send: () => Promise<{ status: number; text: string }>) => {
    let seen = 0;
    for (let i = 0; i < 3; i++) {
      const res = await send().catch((error: Error) => error);
      if (res instanceof Error) {
        expect(res.message).toMatch(/ECONNRESET|socket hang up|EPIPE/);
        continue;
      }
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text).error).toMatch(/^PayloadTooLargeError: /);
      seen++;
    }
    expect(seen).toBeGreaterThan(0);
  };

  it('413 for an oversized body with a Content-Length, not dispatched', async () => {
    const before = JSON.parse(
      (await sendHttp(server.port, { method: 'GET', path: '/count' })).text,
    );
    await tooLarge(() => sendHttp(server.port, signed('push', big)));
    const after = JSON.parse((await sendHttp(server.port, { method: 'GET', path: '/count' })).text);
    expect(after.pushes).toBe(before.pushes);
  });

  it('413 for an oversized chunked body', async () => {
    await tooLarge(() => {
      const req = signed('push', big);
      return sendHttp(server.port, {
        ...req,
        body: Readable.from([big.slice(0, 30_000), big.slice(30_000, 60_000), big.slice(60_000)]),
      });
    });
  });

  it('202 when a handler outlasts the timeout, also for two overlapping ones', async () => {
    const ping = JSON.stringify({ zen: 'slow', hook_id: 1 });
    const res = await sendHttp(server.port, signed('ping', ping));
    expect(res.status).toBe(202);
    expect(res.text).toBe('still processing\n');
    // The second one's deadline is served by the timer the first one armed.
    const first = sendHttp(server.port, signed('ping', ping, 'ping-2'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = sendHttp(server.port, signed('ping', ping, 'ping-3'));
    expect((await first).status).toBe(202);
    expect((await second).status).toBe(202);
    // And a quick delivery right after still gets its 200.
    expect((await sendHttp(server.port, signed('push', push))).status).toBe(200);
  });

  it('an empty 200 for another path, as the peer answers', async () => {
    const res = await sendHttp(server.port, { ...signed('push', push), path: '/elsewhere' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });
});
