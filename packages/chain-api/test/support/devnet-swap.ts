import {
  type Address,
  createWalletClient,
  erc20Abi,
  http,
  type PublicClient,
  parseAbi,
  type TransactionReceipt,
} from 'viem';
import { foundry } from 'viem/chains';
import type { Devnet } from '../../src/devnet/index.js';

const routerAbi = parseAbi([
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])',
]);

/**
 * Swaps `amountIn` of `from` for `to` through the devnet's Uniswap v2 router as its whale (an
 * impersonated account); throws unless the swap succeeded.
 *
 * @example
 * const receipt = await routerSwap(devnet, pub, usdc, weth, 1_000n * 10n ** 6n);
 */
export async function routerSwap(
  devnet: Devnet,
  pub: PublicClient,
  from: Address,
  to: Address,
  amountIn: bigint,
): Promise<TransactionReceipt> {
  const whale = devnet.manifest.wallets.whale;
  await pub.request({ method: 'anvil_impersonateAccount' as never, params: [whale] as never });
  const wallet = createWalletClient({ chain: foundry, transport: http(devnet.rpcUrl) });
  const router = devnet.manifest.contracts.uniswapV2Router;
  const approve = await wallet.writeContract({
    account: whale,
    address: from,
    abi: erc20Abi,
    functionName: 'approve',
    args: [router, amountIn],
  });
  await pub.waitForTransactionReceipt({ hash: approve });
  const swap = await wallet.writeContract({
    account: whale,
    address: router,
    abi: routerAbi,
    functionName: 'swapExactTokensForTokens',
    args: [amountIn, 0n, [from, to], whale, 2n ** 64n],
    // Not the node's estimate: a pair spends more gas when the block's timestamp differs from
    // its last update, so an estimate taken at another timestamp can run out of gas.
    gas: 1_000_000n,
  });
  const receipt = await pub.waitForTransactionReceipt({ hash: swap });
  if (receipt.status !== 'success') throw new Error(`router swap ${swap} reverted`);
  return receipt;
}
