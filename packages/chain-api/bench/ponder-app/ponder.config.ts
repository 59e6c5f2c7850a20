import { createConfig } from 'ponder';
import { parseAbi } from 'viem';

// Minimal ERC20 Transfer balances app: the workload the issue compares against.
const erc20 = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']);
const addresses = (process.env.PONDER_TOKENS ?? '').split(',').filter(Boolean) as `0x${string}`[];

export default createConfig({
  database:
    process.env.PONDER_TARGET === 'postgres'
      ? { kind: 'postgres', connectionString: process.env.DATABASE_URL }
      : { kind: 'pglite', directory: process.env.PGLITE_DIR },
  chains: {
    anvil: { id: 31337, rpc: process.env.PONDER_RPC_URL, disableCache: true },
  },
  contracts: {
    ERC20: {
      abi: erc20,
      chain: 'anvil',
      address: addresses,
      startBlock: 0,
      endBlock: Number(process.env.PONDER_HEAD),
    },
  },
});
