import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { rpcCall as rpc } from '../indexer/random-workload.js';

/** Blocks per `anvil_mine` call: the call is cheap once pruned, fewer round trips. */
const MINE_CHUNK = 10_000;

/**
 * Why two anvils: anvil 1.7 keeps a state snapshot per block (500 in memory, then up to 3,600
 * serialized to disk) and each snapshot grows with the chain, so `anvil_mine` on a plain anvil
 * slows as the chain grows (measured: 139 blocks/s over the first 10k blocks, 59 over the next
 * 10k). The Prague default adds the EIP-2935 history contract, whose storage is re-hashed into
 * the state root every block (still ~90 blocks/s with pruning). A `--prune-history` anvil on
 * Cancun mines ~40,000 empty blocks/s, but keeps no past state, so it cannot trace anything;
 * a second anvil loads its dump (blocks kept, no past states) and mines the activity, which it
 * can trace while it stays within its ~4,000 kept states.
 */
const HARDFORK = ['--hardfork', 'cancun'];

/**
 * Starts anvil with `emptyBlocks` empty blocks already mined (block 0 to `emptyBlocks`), built
 * in seconds: mined on a pruned anvil, dumped, loaded into a normal one that can trace the
 * blocks mined after. Blocks of the dump cannot be traced (no past state): keep activity that
 * needs traces after them, within ~4,000 blocks of the head when indexing.
 *
 * @example
 * const anvil = await startAnvilWithEmptyHistory(200_000); // head 200000, ~10 s
 */
export async function startAnvilWithEmptyHistory(emptyBlocks: number): Promise<AnvilInstance> {
  if (emptyBlocks <= 0) return await startAnvil({ args: HARDFORK });
  const dir = mkdtempSync(join(tmpdir(), 'sluice-history-'));
  try {
    const file = join(dir, 'state.json');
    const pruned = await startAnvil({
      args: [...HARDFORK, '--prune-history', '--dump-state', file],
      stopGraceMs: 120_000,
    });
    try {
      for (let left = emptyBlocks; left > 0; left -= MINE_CHUNK) {
        await rpc(pruned.rpcUrl, 'anvil_mine', [`0x${Math.min(MINE_CHUNK, left).toString(16)}`]);
      }
    } finally {
      await pruned.stop(); // anvil writes the dump as it exits
    }
    if (!existsSync(file)) throw new Error(`anvil wrote no state dump:\n${pruned.output()}`);
    const anvil = await startAnvil({
      args: [...HARDFORK, '--load-state', file],
      timeoutMs: 120_000,
    });
    const head = BigInt(await rpc<string>(anvil.rpcUrl, 'eth_blockNumber'));
    if (head !== BigInt(emptyBlocks)) {
      await anvil.stop();
      throw new Error(`loaded history ends at block ${head}, expected ${emptyBlocks}`);
    }
    return anvil;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
