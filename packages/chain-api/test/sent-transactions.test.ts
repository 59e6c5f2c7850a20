import pino from 'pino';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  parseEther,
  parseGwei,
  zeroAddress,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../src/chains/index.js';
import { type AnvilInstance, startAnvil } from '../src/devnet/index.js';
import { indexOnce } from '../src/ingest/index.js';
import { rpcCall } from './indexer/random-workload.js';
import { startTestApi, type TestApi } from './support/api-harness.js';

/**
 * Every transaction a wallet sends is in its activity feed once, at its block, even when it
 * moved nothing: a zero-value self-send replacing a stuck transaction (a cancel), an EIP-7702
 * delegation and its clearing, a zero-value send, a reverted send. Two anvil chains (prague),
 * indexed for real; the transactions endpoint must agree on what the wallet sent, and a reorg
 * removes a row like any other.
 */
const log = pino({ level: 'silent' });
const mnemonic = 'test test test test test test test test test test test junk';
const me = mnemonicToAccount(mnemonic, { addressIndex: 1 });
const other = mnemonicToAccount(mnemonic, { addressIndex: 2 });
const wallet = me.address.toLowerCase();
const chainA = 777_001;
const chainB = 777_002;
/** A delegation target: delegating to an address with no code is valid and keeps calls inert. */
const target = '0x00000000000000000000000000000000000c0de0' as Address;
/** Init code of a contract whose code reverts on every call (`PUSH 0 PUSH 0 REVERT`). */
const revertingInitCode = '0x6005600c60003960056000f360006000fd' as Hex;

interface Sent {
  chainId: number;
  hash: string;
  block: bigint;
  type: string;
}
interface Item {
  chain_id: number;
  block_number: number;
  tx_hash: string;
  type: string;
  asset_type?: string;
  from?: string;
  to?: string;
  value?: string;
  authorization_list?: Array<{ chain_id: number; address: string; authority: string | null }>;
}

let anvils: AnvilInstance[] = [];
let api: TestApi;
let configs: ChainConfig[];
const sent: Sent[] = [];
let stuck: Hex;
let cancel: Hex;
let delegate: Hex;
let clear: Hex;

function chainConfig(chainId: number, rpcUrl: string): ChainConfig {
  return {
    chainId,
    name: `chain-${chainId}`,
    tags: [],
    nativeSymbol: 'ETH',
    nativeName: 'Ether',
    nativeDecimals: 18,
    rpcUrl,
    startBlock: 0n,
    finalityDepth: 64,
    stablecoins: [],
    uniswapV2Factories: [],
    uniswapV3Factories: [],
  };
}

const clients = (anvil: AnvilInstance) => ({
  pub: createPublicClient({ transport: http(anvil.rpcUrl) }),
  me: createWalletClient({ account: me, transport: http(anvil.rpcUrl) }),
});

/** Waits for `hash`, records it as sent by the wallet, returns its receipt status. */
async function mined(anvil: AnvilInstance, chainId: number, hash: Hex, type: string) {
  const receipt = await clients(anvil).pub.waitForTransactionReceipt({ hash });
  sent.push({ chainId, hash, block: receipt.blockNumber, type });
  return receipt.status;
}

const index = () => indexOnce({ db: api.t.db, chains: configs, log, batchSize: 4 });

async function feed(chainIds: string): Promise<Item[]> {
  const res = await api.get(`/v1/evm/activity/${wallet}?chain_ids=${chainIds}&limit=100`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { activity: Item[] }).activity;
}

async function transactions(chainIds: string): Promise<Array<{ hash: string; from: string }>> {
  const res = await api.get(`/v1/evm/transactions/${wallet}?chain_ids=${chainIds}&limit=100`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { transactions: Array<{ hash: string; from: string }> })
    .transactions;
}

beforeAll(async () => {
  anvils = await Promise.all(
    [chainA, chainB].map((chainId) => startAnvil({ chainId, args: ['--hardfork', 'prague'] })),
  );
  const [a, b] = anvils as [AnvilInstance, AnvilInstance];
  const { me: signer } = clients(a);

  // A plain send: it already has its `send` row, which must stay the only one.
  await mined(
    a,
    chainA,
    await signer.sendTransaction({ to: other.address, value: parseEther('1'), chain: null }),
    'send',
  );

  // A transaction stuck in the pool at nonce n, replaced by a zero-value self-send at nonce n.
  const nonce = await clients(a).pub.getTransactionCount({ address: me.address });
  await rpcCall(a.rpcUrl, 'evm_setAutomine', [false]);
  const fees = (tip: bigint) => ({
    maxPriorityFeePerGas: tip,
    maxFeePerGas: parseGwei('50') + tip,
  });
  stuck = await signer.sendTransaction({
    to: other.address,
    value: parseEther('0.5'),
    nonce,
    gas: 21_000n,
    ...fees(parseGwei('1')),
    chain: null,
  });
  cancel = await signer.sendTransaction({
    to: me.address,
    value: 0n,
    nonce,
    gas: 21_000n,
    ...fees(parseGwei('3')),
    chain: null,
  });
  await rpcCall(a.rpcUrl, 'evm_mine');
  await rpcCall(a.rpcUrl, 'evm_setAutomine', [true]);
  await mined(a, chainA, cancel, 'send');

  // EIP-7702: delegate the wallet to `target`, then clear the delegation (address zero).
  for (const [contractAddress, label] of [
    [target, 'delegate'],
    [zeroAddress, 'clear'],
  ] as const) {
    const authorization = await signer.signAuthorization({
      account: me,
      contractAddress,
      executor: 'self',
      chainId: chainA,
    });
    const hash = await signer.sendTransaction({
      to: me.address,
      value: 0n,
      authorizationList: [authorization],
      chain: null,
    });
    expect(await mined(a, chainA, hash, 'send')).toBe('success');
    if (label === 'delegate') delegate = hash;
    else clear = hash;
  }
  expect(await clients(a).pub.getCode({ address: me.address })).toBeUndefined();

  // A nonce bump: zero value, no calldata, to someone else.
  await mined(
    a,
    chainA,
    await signer.sendTransaction({ to: other.address, value: 0n, chain: null }),
    'send',
  );
  // A reverted send: value to a contract that reverts, no calldata.
  const deploy = await signer.sendTransaction({ data: revertingInitCode, chain: null });
  expect(await mined(a, chainA, deploy, 'call')).toBe('success');
  const reverter = (await clients(a).pub.getTransactionReceipt({ hash: deploy })).contractAddress;
  const reverted = await signer.sendTransaction({
    to: reverter as Address,
    value: 1n,
    gas: 100_000n,
    chain: null,
  });
  expect(await mined(a, chainA, reverted, 'call')).toBe('reverted');

  // Chain B: the same wallet bumps its nonce there too.
  await mined(
    b,
    chainB,
    await clients(b).me.sendTransaction({ to: other.address, value: 0n, chain: null }),
    'send',
  );

  configs = [chainConfig(chainA, a.rpcUrl), chainConfig(chainB, b.rpcUrl)];
  api = await startTestApi({ chains: configs });
  await index();
}, 300_000);

afterAll(async () => {
  await api?.close();
  for (const anvil of anvils) await anvil.stop();
});

/** The feed holds exactly one row per sent transaction, of the expected type, at its block. */
function expectOncePerSent(items: readonly Item[], chainIds: readonly number[]): void {
  const expected = sent.filter((s) => chainIds.includes(s.chainId));
  expect(expected.length).toBeGreaterThan(0);
  for (const s of expected) {
    const rows = items.filter((i) => i.tx_hash === s.hash);
    expect(rows, `${s.type} ${s.hash}`).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      chain_id: s.chainId,
      block_number: Number(s.block),
      type: s.type,
      from: wallet,
    });
  }
}

describe('transactions a wallet sent, in its activity feed', () => {
  it('lists each sent transaction once at its block, on one chain and on a chain_ids list', async () => {
    expectOncePerSent(await feed(String(chainA)), [chainA]);
    expectOncePerSent(await feed(String(chainB)), [chainB]);
    expectOncePerSent(await feed(`${chainA},${chainB}`), [chainA, chainB]);
  });

  it('shows the cancel as a zero-value self-send, and not the transaction it replaced', async () => {
    const items = await feed(String(chainA));
    expect(items.some((i) => i.tx_hash === stuck)).toBe(false);
    expect(items.find((i) => i.tx_hash === cancel)).toMatchObject({
      type: 'send',
      asset_type: 'native',
      from: wallet,
      to: wallet,
      value: '0',
    });
  });

  it('names the delegation target of a set-code transaction, and address zero when cleared', async () => {
    const items = await feed(`${chainA},${chainB}`);
    const entry = (hash: string) => items.find((i) => i.tx_hash === hash)?.authorization_list;
    expect(entry(delegate)).toEqual([
      {
        chain_id: chainA,
        address: target.toLowerCase(),
        nonce: expect.any(String),
        authority: wallet,
      },
    ]);
    expect(entry(clear)).toEqual([
      { chain_id: chainA, address: zeroAddress, nonce: expect.any(String), authority: wallet },
    ]);
  });

  it('agrees with the transactions endpoint on which transactions the wallet sent', async () => {
    const chains = `${chainA},${chainB}`;
    const fromTxs = (await transactions(chains))
      .filter((t) => t.from.toLowerCase() === wallet)
      .map((t) => t.hash)
      .sort();
    // In this scenario only the wallet's own transactions name it as `from`.
    const fromFeed = [
      ...new Set((await feed(chains)).filter((i) => i.from === wallet).map((i) => i.tx_hash)),
    ].sort();
    expect(fromFeed).toEqual(fromTxs);
    expect(fromTxs).toEqual(sent.map((s) => s.hash).sort());
  });

  it('drops the row of a transaction a reorg removed', async () => {
    const a = anvils[0] as AnvilInstance;
    const snapshot = await rpcCall<string>(a.rpcUrl, 'evm_snapshot');
    const bump = await clients(a).me.sendTransaction({
      to: other.address,
      value: 0n,
      chain: null,
    });
    await clients(a).pub.waitForTransactionReceipt({ hash: bump });
    await index();
    expect((await feed(String(chainA))).filter((i) => i.tx_hash === bump)).toHaveLength(1);

    await rpcCall(a.rpcUrl, 'evm_revert', [snapshot]);
    // A longer branch from the same parent, without the bump.
    const otherWallet = createWalletClient({ account: other, transport: http(a.rpcUrl) });
    for (let i = 0; i < 2; i++) {
      const hash = await otherWallet.sendTransaction({ to: me.address, value: 1n, chain: null });
      await clients(a).pub.waitForTransactionReceipt({ hash });
    }
    await index();
    const items = await feed(String(chainA));
    expect(items.some((i) => i.tx_hash === bump)).toBe(false);
    expect((await transactions(String(chainA))).some((t) => t.hash === bump)).toBe(false);
    expectOncePerSent(items, [chainA]);
  });
});
