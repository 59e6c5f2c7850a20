import { encodeDeployData, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { compileContracts } from '../../src/devnet/index.js';
import { prng } from '../../src/devnet/prng.js';

/** Minimal JSON-RPC call against the node (test helper). */
export async function rpcCall<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Deterministic PRNG (mulberry32), shared with the devnet trickle. */
export const rng = prng;

export interface Workload {
  deployer: Hex;
  wallets: Hex[];
  erc20: Hex[];
  erc721: Hex;
  erc1155: Hex;
  weth: Hex;
  multicall3: Hex;
}

const erc20Abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 amount)',
  'function burn(uint256 amount)',
  'function balanceOf(address) view returns (uint256)',
]);
const wethAbi = parseAbi(['function deposit() payable', 'function withdraw(uint256 wad)']);
const nftAbi = parseAbi([
  'function mint(address to) returns (uint256)',
  'function transferFrom(address from, address to, uint256 tokenId)',
  'function burn(uint256 tokenId)',
  'function setApprovalForAll(address operator, bool approved)',
  'function approve(address to, uint256 tokenId)',
  'function setTokenURI(uint256 tokenId, string uri)',
  'function ownerOf(uint256) view returns (address)',
]);
const itemsAbi = parseAbi([
  'function mint(address to, uint256 id, uint256 amount)',
  'function mintBatch(address to, uint256[] ids, uint256[] amounts)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
  'function burn(address account, uint256 id, uint256 value)',
  'function setApprovalForAll(address operator, bool approved)',
  'function balanceOf(address, uint256) view returns (uint256)',
]);

/** Sends a transaction from any address (anvil auto-impersonation); explicit gas keeps reverts in. */
export async function send(
  url: string,
  from: Hex,
  to: Hex | null,
  data: Hex = '0x',
  value = 0n,
  gas?: bigint,
): Promise<Hex> {
  return rpcCall<Hex>(url, 'eth_sendTransaction', [
    {
      from,
      ...(to ? { to } : {}),
      data,
      value: `0x${value.toString(16)}`,
      ...(gas ? { gas: `0x${gas.toString(16)}` } : {}),
    },
  ]);
}

/** Polls for a receipt (anvil may answer eth_sendTransaction before the block is sealed). */
export async function waitReceipt(
  url: string,
  hash: Hex,
): Promise<{ contractAddress: Hex | null; status: Hex; blockNumber: Hex }> {
  for (let i = 0; i < 200; i++) {
    const r = await rpcCall<{ contractAddress: Hex | null; status: Hex; blockNumber: Hex } | null>(
      url,
      'eth_getTransactionReceipt',
      [hash],
    );
    if (r) return r;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`no receipt for ${hash}`);
}

async function deploy(url: string, from: Hex, name: string, args: unknown[]): Promise<Hex> {
  const c = (await compileContracts())[name];
  if (!c) throw new Error(`no contract ${name}`);
  const hash = await send(
    url,
    from,
    null,
    encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args }),
  );
  const receipt = await waitReceipt(url, hash);
  return (receipt.contractAddress as Hex).toLowerCase() as Hex;
}

/**
 * Deploys the workload's contracts (3 ERC20s with 18/6/8 decimals, an ERC721, an ERC1155, WETH9,
 * Multicall3) and funds `walletCount` fresh wallets with ETH and tokens. Needs automine.
 */
export async function deployWorkload(
  url: string,
  walletCount: number,
  seed = 1,
): Promise<Workload> {
  await rpcCall(url, 'anvil_autoImpersonateAccount', [true]);
  const deployer = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Hex;
  const r = rng(seed);
  const wallets: Hex[] = Array.from({ length: walletCount }, (_, i) => {
    const hex = (BigInt(i + 1) * 0x9e3779b97f4a7c15n + BigInt(Math.floor(r() * 1e9))).toString(16);
    return `0x${hex.padStart(40, 'a').slice(-40)}` as Hex;
  });
  const erc20 = [
    await deploy(url, deployer, 'DevToken', ['Alpha', 'ALP', 18, deployer]),
    await deploy(url, deployer, 'DevToken', ['Stable', 'USD', 6, deployer]),
    await deploy(url, deployer, 'DevToken', ['Bitcoin', 'BTC', 8, deployer]),
  ];
  const erc721 = await deploy(url, deployer, 'DevCollection', [
    'Cats',
    'CAT',
    'http://x/',
    deployer,
  ]);
  const erc1155 = await deploy(url, deployer, 'DevItems', ['http://x/{id}.json', deployer]);
  const weth = await deploy(url, deployer, 'WETH9', []);
  const multicall3 = await deploy(url, deployer, 'Multicall3', []);
  for (const w of wallets) {
    await rpcCall(url, 'anvil_setBalance', [w, '0x56bc75e2d63100000']); // 100 ETH
    for (const t of erc20) {
      await send(
        url,
        deployer,
        t,
        encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [w, 10n ** 24n] }),
      );
    }
  }
  return { deployer, wallets, erc20, erc721, erc1155, weth, multicall3 };
}

/**
 * Plays `ops` random operations (ERC20 transfers/approvals/transferFrom/burns, native sends,
 * WETH wraps, NFT mints/transfers/burns, ERC1155 single/batch transfers, approvals for all,
 * metadata updates, some reverting), `perBlock` transactions per mined block.
 */
export async function playRandomOps(
  url: string,
  w: Workload,
  opts: { seed: number; ops: number; perBlock?: number },
): Promise<void> {
  const r = rng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const amount = () => BigInt(Math.floor(r() * 1e6)) * 10n ** 12n;
  const perBlock = opts.perBlock ?? 3;
  const gas = 500_000n;
  await rpcCall(url, 'evm_setAutomine', [false]);
  let minted = 0;
  for (let i = 0; i < opts.ops; i++) {
    const a = pick(w.wallets);
    const b = pick(w.wallets);
    const token = pick(w.erc20);
    const op = Math.floor(r() * 14);
    const call = (to: Hex, data: Hex, from: Hex = a, value = 0n) =>
      send(url, from, to, data, value, gas);
    switch (op) {
      case 0:
      case 1:
      case 2:
        await call(
          token,
          encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [b, amount()] }),
        );
        break;
      case 3:
        await call(
          token,
          encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [b, amount() * 3n] }),
        );
        await call(
          token,
          encodeFunctionData({
            abi: erc20Abi,
            functionName: 'transferFrom',
            args: [a, pick(w.wallets), amount()],
          }),
          b,
        );
        break;
      case 4:
        await call(
          token,
          encodeFunctionData({ abi: erc20Abi, functionName: 'burn', args: [amount()] }),
        );
        break;
      case 5:
        await send(url, a, b, '0x', BigInt(Math.floor(r() * 1e6)) * 10n ** 9n);
        break;
      case 6:
        await call(
          w.weth,
          encodeFunctionData({ abi: wethAbi, functionName: 'deposit' }),
          a,
          10n ** 16n,
        );
        break;
      case 7:
        await call(
          w.weth,
          encodeFunctionData({ abi: wethAbi, functionName: 'withdraw', args: [5n * 10n ** 15n] }),
        );
        break;
      case 8:
        minted++;
        await call(
          w.erc721,
          encodeFunctionData({ abi: nftAbi, functionName: 'mint', args: [a] }),
          w.deployer,
        );
        break;
      case 9: {
        const id = BigInt(1 + Math.floor(r() * Math.max(1, minted)));
        const owner = await rpcCall<Hex>(url, 'eth_call', [
          {
            to: w.erc721,
            data: encodeFunctionData({ abi: nftAbi, functionName: 'ownerOf', args: [id] }),
          },
          'pending',
        ]).catch(() => null);
        const from = owner ? (`0x${owner.slice(26)}` as Hex) : a;
        if (r() < 0.15)
          await call(
            w.erc721,
            encodeFunctionData({ abi: nftAbi, functionName: 'burn', args: [id] }),
            from,
          );
        else
          await call(
            w.erc721,
            encodeFunctionData({ abi: nftAbi, functionName: 'transferFrom', args: [from, b, id] }),
            from,
          );
        break;
      }
      case 10: {
        const id = BigInt(1 + Math.floor(r() * 4));
        await call(
          w.erc1155,
          encodeFunctionData({ abi: itemsAbi, functionName: 'mint', args: [a, id, 10n] }),
          w.deployer,
        );
        break;
      }
      case 11: {
        const ids = [1n, 2n, 3n];
        if (r() < 0.5) {
          await call(
            w.erc1155,
            encodeFunctionData({
              abi: itemsAbi,
              functionName: 'safeTransferFrom',
              args: [a, b, pick(ids), 2n, '0x'],
            }),
          );
        } else {
          await call(
            w.erc1155,
            encodeFunctionData({
              abi: itemsAbi,
              functionName: 'safeBatchTransferFrom',
              args: [a, b, ids, [1n, 1n, 1n], '0x'],
            }),
          );
        }
        break;
      }
      case 12:
        await call(
          w.erc1155,
          encodeFunctionData({
            abi: itemsAbi,
            functionName: 'burn',
            args: [a, pick([1n, 2n]), 1n],
          }),
        );
        await call(
          w.erc721,
          encodeFunctionData({
            abi: nftAbi,
            functionName: 'setApprovalForAll',
            args: [b, r() < 0.7],
          }),
        );
        break;
      case 13:
        // Self transfer and a transfer that must revert (more than the balance).
        await call(
          token,
          encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [a, amount()] }),
        );
        await call(
          token,
          encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [b, 10n ** 30n] }),
        );
        break;
    }
    if ((i + 1) % perBlock === 0) await rpcCall(url, 'evm_mine', []);
  }
  await rpcCall(url, 'evm_mine', []);
  await rpcCall(url, 'evm_setAutomine', [true]);
}
