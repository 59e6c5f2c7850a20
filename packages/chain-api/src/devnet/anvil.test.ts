import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { findAnvilBinary, startAnvil } from './anvil.js';
import { AnvilNotFoundError, AnvilStartError } from './errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of anvil processes whose command line mentions `--port <port>`. */
function anvilPidsOnPort(port: number): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => /\banvil\b/.test(l) && l.includes(`--port ${port} `) && !l.includes('/bin/sh'))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('findAnvilBinary', () => {
  it('finds the npm-shipped binary', () => {
    expect(findAnvilBinary({ PATH: '' })).toMatch(/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
  });

  it('prefers an executable ANVIL_PATH and reports a bad one', () => {
    const npmBin = findAnvilBinary({});
    expect(findAnvilBinary({ ANVIL_PATH: npmBin })).toBe(npmBin);
    // A bad ANVIL_PATH falls back to the package but is listed if nothing is found.
    expect(findAnvilBinary({ ANVIL_PATH: '/nonexistent/anvil' })).toBe(npmBin);
  });
});

describe('startAnvil', () => {
  const started: { stop(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(started.map((a) => a.stop()));
  });

  it('starts on a free port, answers JSON-RPC, and stops without leaving a process', async () => {
    const anvil = await startAnvil({ chainId: 31337 });
    started.push(anvil);
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    const client = createPublicClient({ transport: http(anvil.rpcUrl, { retryCount: 0 }) });
    expect(await client.getChainId()).toBe(31337);
    const pids = anvilPidsOnPort(anvil.port);
    expect(pids).toHaveLength(1);
    await anvil.stop();
    await anvil.stop(); // idempotent
    expect(alive(anvil.pid)).toBe(false);
    expect(await waitFor(() => anvilPidsOnPort(anvil.port).length === 0)).toBe(true);
    await expect(client.getBlockNumber()).rejects.toThrow();
  });

  it('passes blockTime, genesisTimestamp and extra args', async () => {
    const genesis = Math.floor(Date.now() / 1000) - 10 * 86400;
    const anvil = await startAnvil({
      blockTime: 1,
      genesisTimestamp: genesis,
      args: ['--chain-id', '777'],
    });
    started.push(anvil);
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    expect(await client.getChainId()).toBe(777);
    const block0 = await client.getBlock({ blockNumber: 0n });
    expect(Number(block0.timestamp)).toBe(genesis);
    const before = await client.getBlockNumber({ cacheTime: 0 });
    expect(await waitFor(() => false, 1600)).toBe(false); // let interval mining produce a block
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(before);
    await anvil.stop();
  });

  it('uses an explicit port and reports a port already in use', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    await expect(startAnvil({ port })).rejects.toThrow(/port \d+ is already in use/);
    server.close();
    await expect(startAnvil({ port: 70000 })).rejects.toBeInstanceOf(AnvilStartError);
  });

  it('reports bad arguments with anvil output', async () => {
    const err = await startAnvil({ args: ['--definitely-not-a-flag'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnvilStartError);
    expect((err as Error).message).toMatch(/exited with code 2[\s\S]*definitely-not-a-flag/);
  });

  it('reports a missing binary clearly', async () => {
    await expect(startAnvil({ binary: '/nonexistent/anvil' })).rejects.toBeInstanceOf(
      AnvilStartError,
    );
    const err = (() => {
      try {
        return findAnvilBinary({ ANVIL_PATH: '/nope', PATH: '/nope-too' }, '@sluice/no-such-anvil');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AnvilNotFoundError);
    expect((err as Error).message).toMatch(/install @foundry-rs\/anvil-linux-amd64/);
    expect((err as Error).message).toMatch(
      /ANVIL_PATH=\/nope[\s\S]*@sluice\/no-such-anvil \(not installed\)[\s\S]*PATH/,
    );
    // With the package missing, `anvil` on PATH is used.
    const dir = dirname(findAnvilBinary({}));
    expect(findAnvilBinary({ PATH: `/nope:${dir}` }, '@sluice/no-such-anvil')).toBe(`${dir}/anvil`);
  });

  it('kills anvil when the owning process is SIGKILLed', async () => {
    const script = `
      import { startAnvil } from ${JSON.stringify(new URL('./anvil.ts', import.meta.url).pathname)};
      const a = await startAnvil();
      console.log(a.port);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      child.once('exit', () => reject(new Error('child exited early')));
    });
    expect(anvilPidsOnPort(port)).toHaveLength(1);
    child.kill('SIGKILL');
    expect(await waitFor(() => anvilPidsOnPort(port).length === 0)).toBe(true);
  });
});
