import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';

const require = createRequire(import.meta.url);

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles Solidity sources with solc-js (OpenZeppelin imports resolved from node_modules), for
 * tests that need a purpose-built contract. Throws with solc's messages on errors.
 */
export function compileSolidity(
  sources: Record<string, string>,
): Record<string, { abi: Abi; bytecode: Hex }> {
  const solc = require('solc') as {
    compile(input: string, opts: { import(path: string): unknown }): string;
  };
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(
      Object.entries(sources).map(([name, content]) => [name, { content }]),
    ),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import(path: string) {
        try {
          return { contents: readFileSync(require.resolve(path), 'utf8') };
        } catch {
          return { error: `not found: ${path}` };
        }
      },
    }),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const out: Record<string, { abi: Abi; bytecode: Hex }> = {};
  for (const file of Object.values(output.contracts)) {
    for (const [name, contract] of Object.entries(file)) {
      out[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    }
  }
  return out;
}
