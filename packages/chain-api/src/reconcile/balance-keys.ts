import type { BalancePair } from './read-balances.js';

/** A batch's ERC20 delta key (`batch.erc20Deltas`): `${wallet}|${token}`. */
export const key20 = (d: { wallet: string; token: string }) => `${d.wallet}|${d.token}`;

/** A batch's ERC1155 delta key (`batch.nft1155`): `${wallet}|${contract}|${tokenId}`. */
export const key1155 = (d: { wallet: string; contract: string; tokenId: bigint }) =>
  `${d.wallet}|${d.contract}|${d.tokenId}`;

/** The balanceOf read of an ERC20 pair. */
export const pair20 = (d: { wallet: string; token: string }): BalancePair => ({
  token: d.token,
  wallet: d.wallet,
});

/** The balanceOf read of an ERC1155 holding. */
export const pair1155 = (d: {
  wallet: string;
  contract: string;
  tokenId: bigint;
}): BalancePair => ({
  token: d.contract,
  wallet: d.wallet,
  id: d.tokenId,
});
