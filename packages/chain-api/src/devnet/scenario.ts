import {
  keccak256,
  maxUint256,
  parseEther,
  parseUnits,
  type TransactionReceipt,
  toHex,
} from 'viem';
import type { Address } from '../chains/chain-config.js';
import { MULTICALL3_ADDRESS } from '../chains/known-chains.js';
import { DEVNET_USERS, DEVNET_WALLETS } from './accounts.js';
import { type CompiledContracts, compileContracts } from './compile.js';
import { deployDefiScenario } from './defi-scenario.js';
import type {
  DevnetCollection,
  DevnetEvent,
  DevnetManifest,
  DevnetPool,
  DevnetSale,
  DevnetToken,
} from './manifest.js';
import { createScenarioClient } from './scenario-client.js';
import { encodeSqrtPriceX96, fullRangeTicks, sqrtBigInt } from './v3-math.js';

/** Minimal logger (pino-compatible). */
export interface DevnetLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface DeployScenarioOptions {
  /**
   * Base URL of the NFT metadata server (startDevnet passes its own). Default
   * `http://devnet-metadata.invalid/`, which never resolves.
   */
  metadataBaseUrl?: string;
  /** Precompiled contracts; default {@link compileContracts}. */
  contracts?: CompiledContracts;
  log?: DevnetLogger;
}

/** Days of block time the scenario spans when the chain's genesis allows it. */
export const SCENARIO_SPAN_DAYS = 10;

const DAY = 86_400;
const HOUR = 3_600;
const DEADLINE = 2n ** 40n;
const w = DEVNET_WALLETS;

/** Deterministic fresh addresses that only ever receive spam. */
function airdropRecipients(count: number): Address[] {
  return Array.from(
    { length: count },
    (_, i) => keccak256(toHex(`sluice-devnet-airdrop-${i}`)).slice(0, 42) as Address,
  );
}

function sortTokens(a: Address, b: Address): [Address, Address] {
  return a < b ? [a, b] : [b, a];
}

/**
 * Deploys the devnet contracts and plays a deterministic scenario on an anvil node (automine):
 * tokens, WETH, Multicall3, Uniswap v2 and v3 with liquidity, transfers, approvals, mints, burns,
 * router swaps, a v3 swap, NFT mints, paid and free NFT transfers, ERC1155 single and batch
 * transfers, WETH wrap/unwrap, ether transfers (some from contracts), and spam airdrops.
 *
 * On a chain whose head is at least {@link SCENARIO_SPAN_DAYS} days old (anvil started with a
 * backdated `genesisTimestamp`), activity is spread over those days and ends at the current
 * time; otherwise it all happens now. Same node state → same addresses and balances.
 *
 * @example
 * const anvil = await startAnvil({ genesisTimestamp: Math.floor(Date.now() / 1000) - 11 * 86400 });
 * const manifest = await deployScenario(anvil.rpcUrl);
 * manifest.tokens.usdc.address; // '0x...'
 */
export async function deployScenario(
  rpcUrl: string,
  opts: DeployScenarioOptions = {},
): Promise<DevnetManifest> {
  const contracts = opts.contracts ?? (await compileContracts());
  const ctx = createScenarioClient(rpcUrl, contracts);
  const { client } = ctx;
  const log = opts.log;
  const base = (opts.metadataBaseUrl ?? 'http://devnet-metadata.invalid/').replace(/\/?$/, '/');

  const [chainId, head] = await Promise.all([client.getChainId(), client.getBlock()]);
  if (head.number > 0n && (await client.getTransactionCount({ address: w.deployer })) > 0) {
    log?.warn({ head: Number(head.number) }, 'devnet: deploying the scenario on a used chain');
  }
  await ctx.impersonate(Object.values(w));

  // Timeline: from the head's time (a backdated genesis) to now.
  const nowSec = () => Math.floor(Date.now() / 1000);
  const endTime = nowSec();
  const timeline = Number(head.timestamp) <= endTime - SCENARIO_SPAN_DAYS * DAY;
  let lastPhase = Number(head.timestamp);
  /** Moves block time to `secondsBeforeEnd` before the end of the scenario (timeline mode). */
  async function phase(name: string, secondsBeforeEnd: number): Promise<void> {
    if (!timeline) return;
    const target = Math.max(endTime - secondsBeforeEnd, lastPhase + 1);
    lastPhase = target;
    await client.setNextBlockTimestamp({ timestamp: BigInt(target) });
    log?.info(
      { phase: name, time: new Date(target * 1000).toISOString() },
      'devnet: scenario phase',
    );
  }

  const events: Record<string, DevnetEvent> = {};
  const pendingEvents: [string, TransactionReceipt][] = [];
  const mark = (name: string, receipt: TransactionReceipt) => {
    pendingEvents.push([name, receipt]);
    return receipt;
  };
  const salesPending: [Omit<DevnetSale, keyof DevnetEvent>, TransactionReceipt][] = [];

  // ---- Phase 0: deploy (deployer nonces 0..17 on a fresh chain: fixed addresses) ----
  await phase('deploy', SCENARIO_SPAN_DAYS * DAY - 60);
  const d = w.deployer;
  const weth = await ctx.deploy('deploy WETH9', d, 'WETH9');
  const multicall3Deployed = await ctx.deploy('deploy Multicall3', d, 'Multicall3');
  const v2Factory = await ctx.deploy('deploy UniswapV2Factory', d, 'UniswapV2Factory', [d]);
  const router = await ctx.deploy('deploy UniswapV2Router02', d, 'UniswapV2Router02', [
    v2Factory,
    weth,
  ]);
  const v3Factory = await ctx.deploy('deploy UniswapV3Factory', d, 'UniswapV3Factory');
  const v3Helper = await ctx.deploy('deploy V3Helper', d, 'V3Helper', [v3Factory]);
  const usdc = await ctx.deploy('deploy USDC', d, 'DevToken', ['USD Coin', 'USDC', 6, d]);
  const slc = await ctx.deploy('deploy SLC', d, 'DevToken', ['Sluice Token', 'SLC', 18, d]);
  const wbtc = await ctx.deploy('deploy WBTC', d, 'DevToken', ['Wrapped BTC', 'WBTC', 8, d]);
  const ilq = await ctx.deploy('deploy ILQ', d, 'DevToken', ['Illiquid Token', 'ILQ', 18, d]);
  const scam = await ctx.deploy('deploy SCAM', d, 'DevToken', ['Scam Token', 'SCAM', 18, d]);
  const b32 = await ctx.deploy('deploy B32', d, 'Bytes32MetadataToken', [d, parseEther('1000000')]);
  const rvt = await ctx.deploy('deploy RVT', d, 'RevertingMetadataToken', [
    d,
    parseEther('1000000'),
  ]);
  const marketplace = await ctx.deploy('deploy Marketplace', d, 'Marketplace');
  const punks = await ctx.deploy('deploy punks', d, 'DevCollection', [
    'Sluice Punks',
    'SPUNK',
    `${base}punks/`,
    d,
  ]);
  const shapes = await ctx.deploy('deploy shapes', d, 'OnchainCollection', [d]);
  const broken = await ctx.deploy('deploy broken', d, 'DevCollection', [
    'Broken Bears',
    'BRKN',
    `${base}broken/`,
    d,
  ]);
  const items = await ctx.deploy('deploy items', d, 'DevItems', [`${base}items/{id}.json`, d]);
  // Multicall3 at its canonical address too, so the usual multicall address works on the devnet.
  await client.setCode({
    address: MULTICALL3_ADDRESS,
    bytecode: contracts.Multicall3!.deployedBytecode,
  });

  const token = (
    address: Address,
    name: string,
    symbol: string,
    decimals: number,
  ): DevnetToken => ({ address, name, symbol, decimals });
  const u6 = (v: string) => parseUnits(v, 6);
  const u8 = (v: string) => parseUnits(v, 8);
  const e18 = (v: string) => parseEther(v);

  // ---- Phase 1: funding and mints ----
  await phase('funding', 9 * DAY + 12 * HOUR);
  await ctx.send('fund lp', d, w.lp, undefined, e18('3000'));
  await ctx.send('fund whale', d, w.whale, undefined, e18('1000'));
  for (const name of DEVNET_USERS) {
    if (name !== 'whale') await ctx.send(`fund ${name}`, d, w[name], undefined, e18('100'));
  }
  await ctx.send('fund mallory', d, w.mallory, undefined, e18('5'));
  // The spam comes from its own deployer, as in the wild.
  const m = w.mallory;
  const spam = await ctx.deploy('deploy spam token', m, 'SpamToken', [
    'Claim USDC rewards at usdc-bonus.xyz',
    'USDC-BONUS.XYZ',
    m,
  ]);
  const spamNft = await ctx.deploy('deploy spam NFT', m, 'DevCollection', [
    'Claim Your Airdrop Pass',
    'CLAIM',
    `${base}spam/`,
    m,
  ]);
  const mint = (step: string, tok: Address, to: Address, amount: bigint) =>
    ctx.write(step, d, tok, 'DevToken', 'mint', [to, amount]);
  await mint('mint USDC lp', usdc, w.lp, u6('10000000'));
  await mint('mint USDC whale', usdc, w.whale, u6('5000000'));
  await mint('mint SLC lp', slc, w.lp, e18('10000000'));
  await mint('mint WBTC lp', wbtc, w.lp, u8('100'));
  await mint('mint WBTC whale', wbtc, w.whale, u8('10'));
  await mint('mint ILQ lp', ilq, w.lp, e18('1000000'));
  await mint('mint SCAM lp', scam, w.lp, 1000n);
  for (const name of DEVNET_USERS) {
    if (name === 'whale') continue;
    const r = await mint(`mint USDC ${name}`, usdc, w[name], u6('50000'));
    if (name === 'alice') mark('erc20Mint', r);
    await mint(`mint SLC ${name}`, slc, w[name], e18('10000'));
  }
  await mint('mint SLC whale', slc, w.whale, e18('500000'));
  await mint('mint WBTC alice', wbtc, w.alice, u8('1.5'));
  await mint('mint SCAM judy', scam, w.judy, e18('1000000'));
  await ctx.write('B32 to alice', d, b32, 'Bytes32MetadataToken', 'transfer', [
    w.alice,
    e18('1500'),
  ]);
  await ctx.write('B32 to bob', d, b32, 'Bytes32MetadataToken', 'transfer', [w.bob, e18('20')]);
  await ctx.write('RVT to alice', d, rvt, 'RevertingMetadataToken', 'transfer', [
    w.alice,
    e18('42'),
  ]);
  await ctx.write('RVT to carol', d, rvt, 'RevertingMetadataToken', 'transfer', [
    w.carol,
    e18('7'),
  ]);

  // ---- Phase 2: liquidity ----
  await phase('liquidity', 9 * DAY);
  const lp = w.lp;
  for (const tok of [usdc, slc, wbtc, ilq, scam]) {
    await ctx.write('lp approves router', lp, tok, 'DevToken', 'approve', [router, maxUint256]);
  }
  const addEth = (step: string, tok: Address, amount: bigint, eth: bigint) =>
    ctx.write(
      step,
      lp,
      router,
      'UniswapV2Router02',
      'addLiquidityETH',
      [tok, amount, 0n, 0n, lp, DEADLINE],
      eth,
    );
  // 3,000 USD per ETH, ~3M USD deep.
  mark('liquidityUsdcWeth', await addEth('add USDC/WETH', usdc, u6('1500000'), e18('500')));
  // SLC = 0.000666 ETH = 2 USD; ~900k USD deep.
  await addEth('add SLC/WETH', slc, e18('225000'), e18('150'));
  // Shallow v2 WBTC pair at 18 ETH/BTC (the deep v3 pool says 20).
  await addEth('add WBTC/WETH v2', wbtc, u8('0.05'), e18('0.9'));
  // Illiquid: ~1,800 USD of depth.
  await addEth('add ILQ/WETH', ilq, e18('3000'), e18('0.3'));
  // Manipulable: 1 wei of SCAM against 5 USDC → an absurd price with ~10 USD of depth.
  mark(
    'liquidityScamUsdc',
    await ctx.write('add SCAM/USDC', lp, router, 'UniswapV2Router02', 'addLiquidity', [
      scam,
      usdc,
      1n,
      u6('5'),
      0n,
      0n,
      lp,
      DEADLINE,
    ]),
  );
  // Uniswap v3 WBTC/WETH 0.3%: 20 WETH per WBTC, full range, 50 WBTC + 1,000 WETH.
  await ctx.write('lp wraps ETH', lp, weth, 'WETH9', 'deposit', [], e18('1100'));
  await ctx.write('lp approves helper WETH', lp, weth, 'WETH9', 'approve', [v3Helper, maxUint256]);
  await ctx.write('lp approves helper WBTC', lp, wbtc, 'DevToken', 'approve', [
    v3Helper,
    maxUint256,
  ]);
  await ctx.write('create v3 pool', d, v3Factory, 'UniswapV3Factory', 'createPool', [
    wbtc,
    weth,
    3000,
  ]);
  const v3Pool = (
    await ctx.read<Address>(v3Factory, 'UniswapV3Factory', 'getPool', [wbtc, weth, 3000])
  ).toLowerCase() as Address;
  const [v3t0, v3t1] = sortTokens(wbtc, weth);
  const wbtcAmount = u8('50');
  const wethAmount = e18('1000');
  const [amount0, amount1] = v3t0 === wbtc ? [wbtcAmount, wethAmount] : [wethAmount, wbtcAmount];
  await ctx.write('initialize v3 pool', d, v3Pool, 'UniswapV3Pool', 'initialize', [
    encodeSqrtPriceX96(amount1, amount0),
  ]);
  const [tickLower, tickUpper] = fullRangeTicks(60);
  const liquidity = (sqrtBigInt(amount0 * amount1) * 99n) / 100n;
  mark(
    'liquidityV3',
    await ctx.write('mint v3 position', lp, v3Helper, 'V3Helper', 'mint', [
      v3Pool,
      tickLower,
      tickUpper,
      liquidity,
    ]),
  );

  const pairOf = async (a: Address, b: Address): Promise<DevnetPool> => {
    const address = (
      await ctx.read<Address>(v2Factory, 'UniswapV2Factory', 'getPair', [a, b])
    ).toLowerCase() as Address;
    const [token0, token1] = sortTokens(a, b);
    return { address, type: 'uniswap_v2', token0, token1 };
  };

  // ---- Phase 3: transfers, approvals, burns ----
  await phase('transfers', 8 * DAY);
  const erc20 = (step: string, from: Address, tok: Address, fn: string, args: unknown[]) =>
    ctx.write(step, from, tok, 'DevToken', fn, args);
  mark(
    'usdcTransfer',
    await erc20('alice pays bob', w.alice, usdc, 'transfer', [w.bob, u6('1000')]),
  );
  await erc20('bob pays carol', w.bob, usdc, 'transfer', [w.carol, u6('250.5')]);
  await erc20('carol sends SLC', w.carol, slc, 'transfer', [w.alice, e18('5')]);
  await erc20('whale funds dave', w.whale, usdc, 'transfer', [w.dave, u6('100000')]);
  await erc20('whale sends WBTC', w.whale, wbtc, 'transfer', [w.dave, u8('1')]);
  mark('nativeTransfer', await ctx.send('alice sends ETH', w.alice, w.bob, undefined, e18('1.5')));
  await ctx.send('bob sends ETH', w.bob, w.heidi, undefined, e18('0.25'));
  await ctx.send('heidi sends ETH', w.heidi, w.ivan, undefined, e18('0.01'));
  mark('approve', await erc20('bob approves carol', w.bob, usdc, 'approve', [w.carol, u6('500')]));
  mark(
    'transferFrom',
    await erc20('carol pulls from bob', w.carol, usdc, 'transferFrom', [w.bob, w.carol, u6('200')]),
  );
  await erc20('erin approves judy', w.erin, slc, 'approve', [w.judy, e18('1000')]);
  mark('revoke', await erc20('erin revokes judy', w.erin, slc, 'approve', [w.judy, 0n]));
  mark('burn', await erc20('carol burns SLC', w.carol, slc, 'burn', [e18('100')]));
  await erc20('erin burns USDC', w.erin, usdc, 'burn', [u6('50')]);

  // ---- Phase 3b: DeFi positions (before the swaps, so the v3 position earns fees) ----
  await phase('defi', 7 * DAY);
  const defi = await deployDefiScenario(ctx, {
    weth,
    wbtc,
    usdc,
    v3Factory,
    v3Helper,
    v3Pool,
    v2Pair: (await pairOf(slc, weth)).address,
  });

  // ---- Phase 4: swaps and WETH ----
  await phase('swaps', 6 * DAY);
  for (const name of ['alice', 'bob', 'carol', 'frank', 'whale'] as const) {
    for (const tok of [usdc, slc]) {
      await erc20(`${name} approves router`, w[name], tok, 'approve', [router, maxUint256]);
    }
  }
  const swap = (step: string, from: Address, fn: string, args: unknown[], value?: bigint) =>
    ctx.write(step, from, router, 'UniswapV2Router02', fn, args, value);
  mark(
    'swapEthForUsdc',
    await swap(
      'alice buys USDC',
      w.alice,
      'swapExactETHForTokens',
      [0n, [weth, usdc], w.alice, DEADLINE],
      e18('1'),
    ),
  );
  mark(
    'swapMultiHop',
    await swap('bob buys SLC via WETH', w.bob, 'swapExactTokensForTokens', [
      u6('3000'),
      0n,
      [usdc, weth, slc],
      w.bob,
      DEADLINE,
    ]),
  );
  mark(
    'swapTokensForEth',
    await swap('carol sells SLC for ETH', w.carol, 'swapExactTokensForETH', [
      e18('1000'),
      0n,
      [slc, weth],
      w.carol,
      DEADLINE,
    ]),
  );
  await swap(
    'frank buys ILQ',
    w.frank,
    'swapExactETHForTokens',
    [0n, [weth, ilq], w.frank, DEADLINE],
    e18('0.01'),
  );
  mark(
    'wethDeposit',
    await ctx.write('dave wraps', w.dave, weth, 'WETH9', 'deposit', [], e18('5')),
  );
  mark(
    'wethWithdraw',
    await ctx.write('dave unwraps', w.dave, weth, 'WETH9', 'withdraw', [e18('2')]),
  );
  await ctx.write('dave approves helper', w.dave, wbtc, 'DevToken', 'approve', [
    v3Helper,
    maxUint256,
  ]);
  mark(
    'swapV3',
    await ctx.write('dave sells WBTC on v3', w.dave, v3Helper, 'V3Helper', 'swapExactIn', [
      v3Pool,
      v3t0 === wbtc,
      u8('0.1'),
      w.dave,
    ]),
  );
  // A contract call that moves no tokens: judy batches reads through Multicall3.
  mark(
    'contractCall',
    await ctx.write(
      'judy calls multicall',
      w.judy,
      MULTICALL3_ADDRESS,
      'Multicall3',
      'aggregate3',
      [[{ target: usdc, allowFailure: false, callData: '0x18160ddd' }]],
    ),
  );

  // ---- Phase 5: NFT mints ----
  await phase('nft mints', 5 * DAY);
  const nft = (
    step: string,
    from: Address,
    to: Address,
    contract: string,
    fn: string,
    args: unknown[],
    value?: bigint,
  ) => ctx.write(step, from, to, contract, fn, args, value);
  const punkOwners: [Address, number][] = [
    [w.alice, 2], // #1 #2
    [w.bob, 1], // #3
    [w.carol, 3], // #4 #5 #6
    [w.dave, 1], // #7
    [w.erin, 1], // #8
    [w.whale, 2], // #9 #10
  ];
  for (const [owner, count] of punkOwners) {
    const r = await nft('mint punks', d, punks, 'DevCollection', 'mintBatch', [
      owner,
      BigInt(count),
    ]);
    if (owner === w.alice) mark('nftMint', r);
  }
  for (const owner of [w.alice, w.bob, w.judy, w.whale]) {
    await nft('mint shape', d, shapes, 'OnchainCollection', 'mint', [owner]);
  }
  for (const owner of [w.bob, w.carol, w.judy]) {
    await nft('mint broken', d, broken, 'DevCollection', 'mint', [owner]);
  }
  mark('erc1155Mint', await nft('mint items', d, items, 'DevItems', 'mint', [w.alice, 1n, 100n]));
  mark(
    'erc1155MintBatch',
    await nft('mint item batch', d, items, 'DevItems', 'mintBatch', [w.bob, [2n, 3n], [5n, 1n]]),
  );

  // ---- Phase 6: NFT sales and transfers ----
  await phase('nft sales', 4 * DAY);
  for (const seller of [w.alice, w.bob, w.carol]) {
    await nft('approve marketplace', seller, punks, 'DevCollection', 'setApprovalForAll', [
      marketplace,
      true,
    ]);
  }
  await nft('approve marketplace 1155', w.alice, items, 'DevItems', 'setApprovalForAll', [
    marketplace,
    true,
  ]);
  const sale = (
    name: string,
    receipt: TransactionReceipt,
    s: Omit<DevnetSale, keyof DevnetEvent | 'pricePerToken' | 'standard' | 'quantity'> & {
      standard?: 'erc721' | 'erc1155';
      quantity?: bigint;
    },
  ) => {
    mark(name, receipt);
    const quantity = s.quantity ?? 1n;
    const per = BigInt(s.totalPrice) / BigInt(s.tokenIds.length) / quantity;
    salesPending.push([
      {
        ...s,
        standard: s.standard ?? 'erc721',
        quantity: quantity.toString(),
        pricePerToken: per.toString(),
      },
      receipt,
    ]);
  };
  const ethSalePrice = e18('0.5');
  sale(
    'ethSale',
    await nft(
      'erin buys punk 1',
      w.erin,
      marketplace,
      'Marketplace',
      'buyWithEth',
      [punks, 1n, w.alice],
      ethSalePrice,
    ),
    {
      collection: punks,
      tokenIds: ['1'],
      seller: w.alice,
      buyer: w.erin,
      paymentToken: 'native',
      totalPrice: ethSalePrice.toString(),
    },
  );
  await erc20('frank approves marketplace', w.frank, usdc, 'approve', [marketplace, maxUint256]);
  const usdcSalePrice = u6('1200');
  sale(
    'usdcSale',
    await nft('frank buys punk 3', w.frank, marketplace, 'Marketplace', 'buyWithToken', [
      punks,
      3n,
      w.bob,
      usdc,
      usdcSalePrice,
    ]),
    {
      collection: punks,
      tokenIds: ['3'],
      seller: w.bob,
      buyer: w.frank,
      paymentToken: usdc,
      totalPrice: usdcSalePrice.toString(),
    },
  );
  await ctx.write('grace wraps', w.grace, weth, 'WETH9', 'deposit', [], e18('1'));
  await ctx.write('grace approves marketplace', w.grace, weth, 'WETH9', 'approve', [
    marketplace,
    maxUint256,
  ]);
  const wethSalePrice = e18('0.3');
  sale(
    'wethSale',
    await nft('grace buys punk 2', w.grace, marketplace, 'Marketplace', 'buyWithToken', [
      punks,
      2n,
      w.alice,
      weth,
      wethSalePrice,
    ]),
    {
      collection: punks,
      tokenIds: ['2'],
      seller: w.alice,
      buyer: w.grace,
      paymentToken: weth,
      totalPrice: wethSalePrice.toString(),
    },
  );
  const batchPrice = e18('1');
  sale(
    'batchSale',
    await nft(
      'heidi buys punks 4+5',
      w.heidi,
      marketplace,
      'Marketplace',
      'buyBatchWithEth',
      [punks, [4n, 5n], w.carol],
      batchPrice,
    ),
    {
      collection: punks,
      tokenIds: ['4', '5'],
      seller: w.carol,
      buyer: w.heidi,
      paymentToken: 'native',
      totalPrice: batchPrice.toString(),
    },
  );
  mark(
    'freeTransfer',
    await nft('carol gives punk 6', w.carol, punks, 'DevCollection', 'safeTransferFrom', [
      w.carol,
      w.ivan,
      6n,
    ]),
  );
  mark('nftBurn', await nft('dave burns punk 7', w.dave, punks, 'DevCollection', 'burn', [7n]));
  await erc20('erin approves marketplace', w.erin, usdc, 'approve', [marketplace, maxUint256]);
  const itemSalePrice = u6('50');
  sale(
    'erc1155Sale',
    await nft('erin buys 5 items', w.erin, marketplace, 'Marketplace', 'buy1155WithToken', [
      items,
      1n,
      5n,
      w.alice,
      usdc,
      itemSalePrice,
    ]),
    {
      collection: items,
      standard: 'erc1155',
      tokenIds: ['1'],
      quantity: 5n,
      seller: w.alice,
      buyer: w.erin,
      paymentToken: usdc,
      totalPrice: itemSalePrice.toString(),
    },
  );
  mark(
    'erc1155Transfer',
    await nft('alice sends items', w.alice, items, 'DevItems', 'safeTransferFrom', [
      w.alice,
      w.carol,
      1n,
      10n,
      '0x',
    ]),
  );
  mark(
    'erc1155BatchTransfer',
    await nft('bob sends item batch', w.bob, items, 'DevItems', 'safeBatchTransferFrom', [
      w.bob,
      w.dave,
      [2n, 3n],
      [2n, 1n],
      '0x',
    ]),
  );

  // ---- Phase 7: the market moves (before the 24 h mark) ----
  await phase('slc dump', 26 * HOUR);
  mark(
    'slcDump',
    await swap('whale dumps SLC', w.whale, 'swapExactTokensForTokens', [
      e18('50000'),
      0n,
      [slc, weth],
      w.whale,
      DEADLINE,
    ]),
  );

  // ---- Phase 8: recent: spam, metadata updates ----
  await phase('spam', 2 * HOUR);
  const recipients = airdropRecipients(30);
  const everyone = [...DEVNET_USERS.map((n) => w[n]), ...recipients];
  mark(
    'spamAirdrop',
    await ctx.write('spam airdrop', m, spam, 'SpamToken', 'airdrop', [everyone, e18('5000')]),
  );
  mark(
    'spamNftAirdrop',
    await nft('spam NFT airdrop', m, spamNft, 'DevCollection', 'airdrop', [everyone]),
  );
  mark(
    'metadataUpdate',
    await nft('punk 8 new metadata', d, punks, 'DevCollection', 'setTokenURI', [
      8n,
      `${base}punks/8-v2`,
    ]),
  );
  mark(
    'batchMetadataUpdate',
    await nft('punks refresh', d, punks, 'DevCollection', 'setBaseURI', [`${base}punks/`]),
  );

  // ---- Phase 9: a last trade, then realign the clock with the wall clock ----
  await phase('last trade', 30 * 60);
  mark(
    'slcBuy',
    await swap(
      'alice buys SLC',
      w.alice,
      'swapExactETHForTokens',
      [0n, [weth, slc], w.alice, DEADLINE],
      e18('5'),
    ),
  );
  if (timeline) {
    await client.setNextBlockTimestamp({ timestamp: BigInt(Math.max(nowSec(), lastPhase + 1)) });
    await client.mine({ blocks: 1 });
  }

  // ---- Manifest ----
  const receipts = [...pendingEvents.map(([, r]) => r), ...salesPending.map(([, r]) => r)];
  const blockNumbers = [...new Set(receipts.map((r) => r.blockNumber))];
  const [endBlock, ...blocks] = await Promise.all([
    client.getBlock(),
    ...blockNumbers.map((blockNumber) => client.getBlock({ blockNumber })),
  ]);
  const timeOf = new Map(blocks.map((b) => [b.number, Number(b.timestamp)]));
  const ev = (r: TransactionReceipt): DevnetEvent => ({
    blockNumber: Number(r.blockNumber),
    txHash: r.transactionHash,
    timestamp: timeOf.get(r.blockNumber) ?? 0,
  });
  for (const [name, r] of pendingEvents) events[name] = ev(r);
  const firstBlock = await client.getBlock({ blockNumber: head.number + 1n });

  const collection = (
    address: Address,
    standard: 'erc721' | 'erc1155',
    name: string,
    symbol: string,
    metadata: DevnetCollection['metadata'],
    uriTemplate: string,
  ): DevnetCollection => ({ address, standard, name, symbol, metadata, uriTemplate });

  const manifest: DevnetManifest = {
    chainId,
    metadataBaseUrl: base,
    startBlock: Number(head.number) + 1,
    endBlock: Number(endBlock.number),
    startTime: Number(firstBlock.timestamp),
    endTime: Number(endBlock.timestamp),
    timeline,
    wallets: { ...DEVNET_WALLETS },
    airdropRecipients: recipients,
    contracts: {
      weth,
      multicall3: MULTICALL3_ADDRESS,
      multicall3Deployed,
      uniswapV2Factory: v2Factory,
      uniswapV2Router: router,
      uniswapV3Factory: v3Factory,
      v3Helper,
      marketplace,
    },
    tokens: {
      usdc: token(usdc, 'USD Coin', 'USDC', 6),
      weth: token(weth, 'Wrapped Ether', 'WETH', 18),
      slc: token(slc, 'Sluice Token', 'SLC', 18),
      wbtc: token(wbtc, 'Wrapped BTC', 'WBTC', 8),
      ilq: token(ilq, 'Illiquid Token', 'ILQ', 18),
      scam: token(scam, 'Scam Token', 'SCAM', 18),
      spam: token(spam, 'Claim USDC rewards at usdc-bonus.xyz', 'USDC-BONUS.XYZ', 18),
      b32: token(b32, 'Maker-like Token', 'B32', 18),
      rvt: token(rvt, '', '', 18),
    },
    pools: {
      usdcWeth: await pairOf(usdc, weth),
      slcWeth: await pairOf(slc, weth),
      wbtcWethV2: await pairOf(wbtc, weth),
      wbtcWethV3: { address: v3Pool, type: 'uniswap_v3', token0: v3t0, token1: v3t1, fee: 3000 },
      ilqWeth: await pairOf(ilq, weth),
      scamUsdc: await pairOf(scam, usdc),
    },
    nfts: {
      punks: collection(punks, 'erc721', 'Sluice Punks', 'SPUNK', 'http', `${base}punks/{id}`),
      shapes: collection(
        shapes,
        'erc721',
        'Onchain Shapes',
        'SHAPE',
        'data',
        'data:application/json;...',
      ),
      broken: collection(broken, 'erc721', 'Broken Bears', 'BRKN', 'broken', `${base}broken/{id}`),
      spam: collection(
        spamNft,
        'erc721',
        'Claim Your Airdrop Pass',
        'CLAIM',
        'spam',
        `${base}spam/{id}`,
      ),
      items: collection(items, 'erc1155', 'Sluice Items', 'ITEM', 'http', `${base}items/{id}.json`),
    },
    sales: salesPending.map(([s, r]) => ({ ...s, ...ev(r) })),
    defi,
    events,
  };
  log?.info(
    { blocks: manifest.endBlock - manifest.startBlock + 1, timeline },
    'devnet: scenario deployed',
  );
  return manifest;
}
