import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';
import { ContractCompileError } from './errors.js';

/** A deployable contract: ABI, creation bytecode and runtime bytecode. */
export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

/**
 * Every devnet contract by name: our Solidity sources in `contracts/` (compiled with solc) and
 * Uniswap v2/v3 (core, and v3's NonfungiblePositionManager) from their published npm artifacts.
 */
export type CompiledContracts = Record<string, CompiledContract>;

const require = createRequire(import.meta.url);

/** packages/chain-api/contracts, from src/devnet or dist/devnet alike. */
export const CONTRACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'contracts');

// Uniswap's own builds: deploying these exact bytecodes keeps the pair init code hash that
// Router02's UniswapV2Library hard-codes (0x96e8ac42...) consistent with the factory.
const ARTIFACTS: Record<string, string> = {
  UniswapV2Factory: '@uniswap/v2-core/build/UniswapV2Factory.json',
  UniswapV2Pair: '@uniswap/v2-core/build/UniswapV2Pair.json',
  UniswapV2Router02: '@uniswap/v2-periphery/build/UniswapV2Router02.json',
  UniswapV3Factory:
    '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
  UniswapV3Pool: '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
  // Its PoolAddress library hard-codes the init code hash of v3-core's published pool bytecode.
  NonfungiblePositionManager:
    '@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json',
};

const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

function hex(value: string): Hex {
  return (value.startsWith('0x') ? value : `0x${value}`) as Hex;
}

function packageVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

/** Loads a Uniswap artifact (waffle format: bytecode at top level or under evm; hardhat: top level). */
function loadArtifact(path: string): CompiledContract {
  const json = require(path) as {
    abi: Abi;
    bytecode?: string | { object: string };
    deployedBytecode?: string | { object: string };
    evm?: { bytecode?: { object: string }; deployedBytecode?: { object: string } };
  };
  const pick = (v: string | { object: string } | undefined, e: { object: string } | undefined) =>
    hex(typeof v === 'string' ? v : (v?.object ?? e?.object ?? ''));
  const bytecode = pick(json.bytecode, json.evm?.bytecode);
  if (bytecode.length <= 2) throw new ContractCompileError(`artifact ${path} has no bytecode`);
  return {
    abi: json.abi,
    bytecode,
    deployedBytecode: pick(json.deployedBytecode, json.evm?.deployedBytecode),
  };
}

async function readSources(dir: string): Promise<Record<string, { content: string }>> {
  const names = (await readdir(dir)).filter((f) => f.endsWith('.sol')).sort();
  if (names.length === 0) throw new ContractCompileError(`no .sol files in ${dir}`);
  const sources: Record<string, { content: string }> = {};
  for (const name of names) sources[name] = { content: await readFile(join(dir, name), 'utf8') };
  return sources;
}

/** Resolves `import "@openzeppelin/..."` (and any other npm path) from node_modules. */
function findImport(path: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') };
  } catch {
    return { error: `import not found: ${path}` };
  }
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
}

async function runSolc(sources: Record<string, { content: string }>): Promise<CompiledContracts> {
  // Loaded only on a cache miss: solc-js takes a few seconds to initialise.
  const solc = (await import('solc')).default;
  const input = JSON.stringify({ language: 'Solidity', sources, settings: SOLC_SETTINGS });
  const output = JSON.parse(solc.compile(input, { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new ContractCompileError(errors.map((e) => e.formattedMessage).join('\n'));
  }
  const result: CompiledContracts = {};
  for (const file of Object.keys(sources)) {
    for (const [name, c] of Object.entries(output.contracts?.[file] ?? {})) {
      if (!c.evm.bytecode.object) continue; // interfaces and abstract contracts
      result[name] = {
        abi: c.abi,
        bytecode: hex(c.evm.bytecode.object),
        deployedBytecode: hex(c.evm.deployedBytecode.object),
      };
    }
  }
  return result;
}

async function writable(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    const probe = join(dir, `.probe-${process.pid}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

async function cacheDir(configured: string | undefined): Promise<string> {
  const candidates = [
    configured,
    join(CONTRACTS_DIR, '..', 'node_modules', '.cache', 'sluice-contracts'),
    join(tmpdir(), 'sluice-contracts'),
  ];
  for (const dir of candidates) if (dir && (await writable(dir))) return dir;
  throw new ContractCompileError('no writable cache directory (set SLUICE_CONTRACTS_CACHE)');
}

async function readCache(file: string): Promise<CompiledContracts | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as CompiledContracts;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function lockIsStale(lock: string): Promise<boolean> {
  const pid = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
  if (pid > 0) {
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }
  const age = await stat(lock).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );
  return age > 120_000;
}

/**
 * Compiles with a cross-process lock so parallel test files compile once: the first takes
 * `<key>.lock` (mkdir is atomic) and the others wait for the result file.
 */
async function compileOnce(
  dir: string,
  key: string,
  compile: () => Promise<CompiledContracts>,
): Promise<CompiledContracts> {
  const file = join(dir, `${key}.json`);
  const lock = join(dir, `${key}.lock`);
  const deadline = Date.now() + 300_000;
  for (;;) {
    const cached = await readCache(file);
    if (cached) return cached;
    try {
      await mkdir(lock);
      await writeFile(join(lock, 'pid'), String(process.pid));
    } catch {
      // Someone else compiles. Their lock is stale if its process is gone (or, without a pid
      // file, once it is older than two minutes).
      if (await lockIsStale(lock)) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new ContractCompileError(`timed out waiting for ${lock}`);
      await sleep(200);
      continue;
    }
    try {
      const result = await compile();
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(result));
      await rename(tmp, file); // atomic: readers never see a partial file
      return result;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

let memo: Promise<CompiledContracts> | undefined;

/**
 * Compiles `contracts/*.sol` with solc-js (OpenZeppelin imports resolved from node_modules) and
 * adds the Uniswap v2/v3 npm artifacts. Results are cached on disk, keyed by a hash of the
 * sources and the compiler/library versions, and memoized in-process.
 *
 * @example
 * const { WETH9 } = await compileContracts();
 * if (WETH9) await wallet.deployContract({ abi: WETH9.abi, bytecode: WETH9.bytecode });
 */
export function compileContracts(
  opts: {
    contractsDir?: string;
    /** Cache folder (SLUICE_CONTRACTS_CACHE); default node_modules/.cache, else the temp dir. */
    cacheDir?: string | undefined;
  } = {},
): Promise<CompiledContracts> {
  if (opts.contractsDir) return compileUncached(opts.contractsDir, opts.cacheDir);
  memo ??= compileUncached(CONTRACTS_DIR, opts.cacheDir).catch((err: unknown) => {
    memo = undefined;
    throw err;
  });
  return memo;
}

async function compileUncached(
  contractsDir: string,
  configuredCache: string | undefined,
): Promise<CompiledContracts> {
  const sources = await readSources(contractsDir);
  const hash = createHash('sha256');
  hash.update(JSON.stringify(SOLC_SETTINGS));
  for (const pkg of ['solc', '@openzeppelin/contracts'])
    hash.update(`${pkg}@${packageVersion(pkg)}`);
  for (const [name, { content }] of Object.entries(sources)) hash.update(`${name}\0${content}\0`);
  const key = hash.digest('hex').slice(0, 32);
  const compiled = await compileOnce(await cacheDir(configuredCache), key, () => runSolc(sources));
  const artifacts = Object.fromEntries(
    Object.entries(ARTIFACTS).map(([name, path]) => [name, loadArtifact(path)]),
  );
  return { ...compiled, ...artifacts };
}
