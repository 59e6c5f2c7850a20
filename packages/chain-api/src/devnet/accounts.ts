import { type HDAccount, mnemonicToAccount } from 'viem/accounts';
import type { Address } from '../chains/chain-config.js';
import { DevnetError } from './errors.js';

/** anvil's default mnemonic: the scenario's wallets are its first accounts. */
export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * Named scenario wallets and their mnemonic index. `deployer` deploys and owns the core
 * contracts, `lp` provides liquidity, `mallory` deploys and airdrops the spam; the rest are users.
 */
export const DEVNET_WALLETS = {
  deployer: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  lp: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  alice: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  bob: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  carol: '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
  dave: '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
  erin: '0x976ea74026e726554db657fa54763abd0c3a0aa9',
  frank: '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
  grace: '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
  heidi: '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
  ivan: '0xbcd4042de499d14e55001ccbb24a551f3b954096',
  judy: '0x71be63f3384f5fb98995898a86b02fb2426c5788',
  mallory: '0xfabb0ac9d68b0b445fb7357272ff202c5651694a',
  whale: '0x1cbd3b2770909d4e10f157cabc84c7264073c9ec',
} as const satisfies Record<string, Address>;

export type DevnetWalletName = keyof typeof DEVNET_WALLETS;

/** Wallet names in mnemonic index order. */
export const DEVNET_WALLET_NAMES = Object.keys(DEVNET_WALLETS) as DevnetWalletName[];

/** The ordinary users (everyone but deployer, lp and mallory). */
export const DEVNET_USERS: readonly DevnetWalletName[] = DEVNET_WALLET_NAMES.filter(
  (n) => n !== 'deployer' && n !== 'lp' && n !== 'mallory',
);

const accounts = new Map<DevnetWalletName, HDAccount>();

/**
 * A signing viem account for a named wallet (derived from {@link DEVNET_MNEMONIC}, cached),
 * for tests that send their own transactions.
 *
 * @example
 * const alice = devnetAccount('alice');
 * await wallet.sendTransaction({ account: alice, to: DEVNET_WALLETS.bob, value: 1n });
 */
export function devnetAccount(name: DevnetWalletName): HDAccount {
  let account = accounts.get(name);
  if (!account) {
    const index = DEVNET_WALLET_NAMES.indexOf(name);
    if (index < 0) {
      throw new DevnetError('UNKNOWN_DEVNET_WALLET', `unknown devnet wallet "${String(name)}"`);
    }
    account = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: index });
    accounts.set(name, account);
  }
  return account;
}
