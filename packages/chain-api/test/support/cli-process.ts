import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliProcess {
  child: ChildProcess;
  /** Base URL once the banner was printed. */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `sluice-chain <args>` from source (tsx) as a child process and waits for the banner's
 * "listening on" line (`waitForBanner` false: returns at once, `url` empty, for `index`).
 * Killed with SIGTERM by `stop()` (graceful shutdown path). `entry` 'built' runs `dist/cli.js`
 * as users do (benchmarks: tsx's transform adds work per closure that the build has not).
 */
export async function startCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
  waitForBanner = true,
  entry: 'source' | 'built' = 'source',
): Promise<CliProcess> {
  const child = spawn(
    process.execPath,
    [
      ...(entry === 'built'
        ? [join(packageDir, 'dist/cli.js')]
        : ['--import', 'tsx', join(packageDir, 'src/cli.ts')]),
      ...args,
    ],
    {
      cwd: packageDir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    out += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    if (!waitForBanner) {
      resolve('');
      return;
    }
    const timer = setTimeout(
      () => reject(new Error(`no banner after ${timeoutMs} ms:\n${out}`)),
      timeoutMs,
    );
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sluice-chain exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    url,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const execCli = promisify(execFile);

/**
 * Runs a short `sluice-chain <args>` command (keys, reset...) from source to its end: its exit
 * code and output.
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execCli(
      process.execPath,
      ['--import', 'tsx', join(packageDir, 'src/cli.ts'), ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
