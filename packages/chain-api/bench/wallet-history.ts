import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { AnvilInstance } from '../src/devnet/index.js';
import {
  deployWorkload,
  playRandomOps,
  rpcCall,
  send,
  type Workload,
} from '../test/indexer/random-workload.js';
import { startAnvilWithEmptyHistory } from '../test/support/long-history.js';

const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

/** The wallets benchmarks' chain: empty history, then the workload and one hot wallet. */
export interface WalletHistory {
  anvil: AnvilInstance;
  w: Workload;
  /** The wallet with `transfers` ERC20 transfers (half sent, half received, 200 per block). */
  hot: Hex;
  head: number;
  buildSeconds: number;
}

/**
 * Builds the history the wallets benchmarks share: `emptyBlocks` empty blocks first (seconds, see
 * `startAnvilWithEmptyHistory`), then the random workload of `cold` wallets, 1,000 empty blocks,
 * the hot wallet's `transfers` transfers with its peers, and 1,000 more empty blocks, all within
 * the ~4,000 newest blocks anvil can still trace.
 *
 * @example
 * const h = await buildWalletHistory({ emptyBlocks: 200_000, transfers: 10_000, cold: 100 });
 */
export async function buildWalletHistory(opts: {
  emptyBlocks: number;
  transfers: number;
  cold: number;
}): Promise<WalletHistory> {
  const t0 = performance.now();
  const anvil = await startAnvilWithEmptyHistory(opts.emptyBlocks);
  try {
    const w = await deployWorkload(anvil.rpcUrl, opts.cold + 1, 21);
    const hot = w.wallets[0] as Hex;
    const token = w.erc20[0] as Hex;
    const mine = async (n: number) => {
      for (let left = n; left > 0; left -= 1_000) {
        await rpcCall(anvil.rpcUrl, 'anvil_mine', [`0x${Math.min(1_000, left).toString(16)}`]);
      }
    };
    await playRandomOps(anvil.rpcUrl, w, { seed: 22, ops: opts.cold * 5, perBlock: 20 });
    await mine(1_000);
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
    for (let i = 0; i < opts.transfers; i++) {
      const peer = w.wallets[1 + (i % opts.cold)] as Hex;
      const [from, to] = i % 2 === 0 ? [hot, peer] : [peer, hot];
      const data = encodeFunctionData({
        abi: erc20,
        functionName: 'transfer',
        args: [to, 1_000n + BigInt(i)],
      });
      await send(anvil.rpcUrl, from, token, data, 0n, 100_000n);
      if (i % 200 === 199) await rpcCall(anvil.rpcUrl, 'evm_mine');
    }
    await rpcCall(anvil.rpcUrl, 'evm_mine');
    await mine(1_000);
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
    const head = Number(BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber')));
    const buildSeconds = Math.round((performance.now() - t0) / 10) / 100;
    return { anvil, w, hot, head, buildSeconds };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
