import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Where each runtime's binary lives in its npm package (root optionalDependencies). */
const RUNTIMES = {
  deno: { env: 'SLUICE_DENO_BIN', pkg: '@deno/linux-x64-glibc', file: 'deno' },
  bun: { env: 'SLUICE_BUN_BIN', pkg: '@oven/bun-linux-x64', file: 'bin/bun' },
  workerd: { env: 'SLUICE_WORKERD_BIN', pkg: '@cloudflare/workerd-linux-64', file: 'bin/workerd' },
} as const;

export type RuntimeName = keyof typeof RUNTIMES;

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The path of a runtime's binary: `$SLUICE_<NAME>_BIN`, else the per-platform npm package, else
 * the first one on PATH; `undefined` when none is found.
 *
 * @example
 * ```ts
 * const deno = locateRuntime('deno'); // …/node_modules/@deno/linux-x64-glibc/deno
 * ```
 */
export function locateRuntime(name: RuntimeName): string | undefined {
  const { env, pkg, file } = RUNTIMES[name];
  const fromEnv = process.env[env];
  if (fromEnv) return isExecutable(fromEnv) ? fromEnv : undefined;
  try {
    const path = join(dirname(require.resolve(`${pkg}/package.json`)), file);
    if (isExecutable(path)) return path;
  } catch {
    // Not installed (another platform, or optional dependencies omitted).
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, name);
    if (dir && isExecutable(path)) return path;
  }
  return undefined;
}

/** Why a runtime is missing, and how to get it. */
export function missingRuntimeMessage(name: RuntimeName): string {
  const { env, pkg } = RUNTIMES[name];
  return `${name} binary not found: run npm ci (it installs ${pkg} as an optional dependency on linux-x64) or set ${env}`;
}
