/**
 * Generates a dense, real history on anvil for the indexing benchmark: the devnet scenario (pools,
 * swaps, NFTs, sales), then ERC20 transfers sprayed to 1,000 wallets by a minimal token whose
 * `spray` runs real transfers in a loop (one Transfer event each), ERC721 mints, and router swaps.
 */
import { encodeDeployData, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { type Devnet, startDevnet } from '../src/devnet/index.js';
import { rng, rpcCall, send, waitReceipt } from '../test/indexer/random-workload.js';

const SPRAY_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
/// A plain ERC20 whose holders can send to many recipients in one transaction (one Transfer each).
contract SprayToken {
    string public name = "Spray";
    string public symbol = "SPRAY";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    function mint(address to, uint256 amount) external {
        totalSupply += amount; balanceOf[to] += amount; emit Transfer(address(0), to, amount);
    }
    function transfer(address to, uint256 amount) public returns (bool) {
        balanceOf[msg.sender] -= amount; balanceOf[to] += amount; emit Transfer(msg.sender, to, amount); return true;
    }
    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount; emit Approval(msg.sender, spender, amount); return true;
    }
    function spray(address[] calldata to, uint256 amount) external {
        for (uint256 i = 0; i < to.length; i++) transfer(to[i], amount);
    }
}`;

const sprayAbi = parseAbi([
  'function mint(address to, uint256 amount)',
  'function spray(address[] to, uint256 amount)',
]);

async function compileSpray(): Promise<Hex> {
  const solc = (await import('solc')).default;
  const input = {
    language: 'Solidity',
    sources: { 'SprayToken.sol': { content: SPRAY_SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
    errors?: { severity: string; formattedMessage: string }[];
  };
  const fatal = out.errors?.filter((e) => e.severity === 'error') ?? [];
  if (fatal.length) throw new Error(fatal.map((e) => e.formattedMessage).join('\n'));
  return `0x${out.contracts['SprayToken.sol']?.SprayToken?.evm.bytecode.object}` as Hex;
}

export interface DenseHistory {
  devnet: Devnet;
  wallets: Hex[];
  spray: Hex;
  erc20Transfers: number;
  nftMints: number;
  swaps: number;
}

/**
 * Starts the devnet and appends `transfers` ERC20 transfers across `walletCount` wallets
 * (`perTx` per transaction, `txPerBlock` transactions per block), `nftMints` ERC721 mints and
 * `swaps` router swaps.
 */
export async function buildDenseHistory(opts: {
  transfers: number;
  walletCount: number;
  perTx: number;
  txPerBlock: number;
  nftMints: number;
  swaps: number;
}): Promise<DenseHistory> {
  const devnet = await startDevnet();
  const url = devnet.rpcUrl;
  const m = devnet.manifest;
  await rpcCall(url, 'anvil_autoImpersonateAccount', [true]);
  const r = rng(7);
  const wallets = Array.from(
    { length: opts.walletCount },
    (_, i) => `0x${(0xbe00000000n + BigInt(i)).toString(16).padStart(40, '0')}` as Hex,
  );
  const deployer = m.wallets.deployer as Hex;
  const hash = await send(
    url,
    deployer,
    null,
    encodeDeployData({ abi: sprayAbi, bytecode: await compileSpray() }),
  );
  const spray = (await waitReceipt(url, hash)).contractAddress as Hex;
  // Seed 50 sender wallets with tokens and ETH for gas.
  const senders = wallets.slice(0, 50);
  for (const s of senders) {
    await rpcCall(url, 'anvil_setBalance', [s, '0x56bc75e2d63100000']);
    await send(
      url,
      deployer,
      spray,
      encodeFunctionData({ abi: sprayAbi, functionName: 'mint', args: [s, 10n ** 30n] }),
    );
  }
  await rpcCall(url, 'evm_setAutomine', [false]);
  let inBlock = 0;
  const mine = async (force = false) => {
    inBlock++;
    if (force || inBlock >= opts.txPerBlock) {
      await rpcCall(url, 'evm_mine');
      inBlock = 0;
    }
  };
  const gas = 30_000_000n / BigInt(opts.txPerBlock) - 100_000n;
  let sent = 0;
  let k = 0;
  while (sent < opts.transfers) {
    const n = Math.min(opts.perTx, opts.transfers - sent);
    const to = Array.from({ length: n }, () => wallets[Math.floor(r() * wallets.length)] as Hex);
    const from = senders[k++ % senders.length] as Hex;
    await send(
      url,
      from,
      spray,
      encodeFunctionData({ abi: sprayAbi, functionName: 'spray', args: [to, 1000n + BigInt(k)] }),
      0n,
      gas,
    );
    sent += n;
    await mine();
  }
  // NFT mints: batches of 100 on the scenario's ERC721 (owner = deployer).
  const nftAbi = parseAbi(['function mintBatch(address to, uint256 count)']);
  for (let i = 0; i < opts.nftMints; i += 100) {
    const to = wallets[Math.floor(r() * wallets.length)] as Hex;
    const count = BigInt(Math.min(100, opts.nftMints - i));
    await send(
      url,
      deployer,
      m.nfts.punks.address as Hex,
      encodeFunctionData({ abi: nftAbi, functionName: 'mintBatch', args: [to, count] }),
      0n,
      6_000_000n,
    );
    await mine();
  }
  // Router swaps ETH -> SLC through WETH/SLC.
  const routerAbi = parseAbi([
    'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable',
  ]);
  for (let i = 0; i < opts.swaps; i++) {
    const who = senders[i % senders.length] as Hex;
    await send(
      url,
      who,
      m.contracts.uniswapV2Router as Hex,
      encodeFunctionData({
        abi: routerAbi,
        functionName: 'swapExactETHForTokens',
        args: [0n, [m.tokens.weth.address as Hex, m.tokens.slc.address as Hex], who, 2n ** 40n],
      }),
      10n ** 15n,
      400_000n,
    );
    await mine();
  }
  await mine(true);
  await rpcCall(url, 'evm_setAutomine', [true]);
  return {
    devnet,
    wallets,
    spray,
    erc20Transfers: sent,
    nftMints: opts.nftMints,
    swaps: opts.swaps,
  };
}
