import { parseEther, parseUnits } from 'viem';
import type { Address } from '../chains/chain-config.js';
import { DEVNET_USERS, type DevnetWalletName } from './accounts.js';
import { type CompiledContracts, compileContracts } from './compile.js';
import type { DevnetManifest } from './manifest.js';
import { prng } from './prng.js';
import type { DevnetLogger } from './scenario.js';
import { createScenarioClient } from './scenario-client.js';

export interface TrickleOptions {
  /** Milliseconds between transactions; default 2000. */
  intervalMs?: number;
  /** PRNG seed: the same seed replays the same sequence of actions. Default 1. */
  seed?: number;
  contracts?: CompiledContracts;
  log?: DevnetLogger;
}

export interface Trickle {
  /** Transactions sent so far (failed attempts excluded). */
  count(): number;
  /** Actions that failed (logged and skipped). */
  failures(): number;
  /** Stops after the transaction in flight, if any. Idempotent. */
  stop(): Promise<void>;
}

// Wallets whose router approvals the scenario set up.
const TRADERS: DevnetWalletName[] = ['alice', 'bob', 'carol', 'frank', 'whale'];

/**
 * Keeps the devnet alive with seeded random activity (token and ether transfers, router swaps,
 * WETH wraps, ERC721 and ERC1155 mints), one transaction every `intervalMs`, so realtime indexing is visible.
 * Failed actions are logged and skipped.
 *
 * @example
 * const trickle = startTrickle(anvil.rpcUrl, manifest, { intervalMs: 500 });
 * await trickle.stop();
 */
export function startTrickle(
  rpcUrl: string,
  manifest: DevnetManifest,
  opts: TrickleOptions = {},
): Trickle {
  const random = prng(opts.seed ?? 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const amount = (min: number, max: number) => (min + random() * (max - min)).toFixed(4);
  const w = manifest.wallets;
  const { usdc, slc, weth } = manifest.tokens;
  const router = manifest.contracts.uniswapV2Router;
  const deadline = 2n ** 40n;
  let sent = 0;
  let failed = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const ready = (async () => {
    const ctx = createScenarioClient(rpcUrl, opts.contracts ?? (await compileContracts()));
    await ctx.impersonate(Object.values(w));
    return ctx;
  })();

  const actions: ((ctx: Awaited<typeof ready>) => Promise<unknown>)[] = [
    (ctx) => {
      const [from, to] = [pick(DEVNET_USERS), pick(DEVNET_USERS)];
      return ctx.write('trickle USDC transfer', w[from], usdc.address, 'DevToken', 'transfer', [
        w[to],
        parseUnits(amount(1, 500), 6),
      ]);
    },
    (ctx) => {
      const [from, to] = [pick(DEVNET_USERS), pick(DEVNET_USERS)];
      return ctx.send(
        'trickle ETH transfer',
        w[from],
        w[to],
        undefined,
        parseEther(amount(0.001, 0.01)),
      );
    },
    (ctx) => {
      const who = pick(TRADERS);
      return ctx.write(
        'trickle buy USDC',
        w[who],
        router,
        'UniswapV2Router02',
        'swapExactETHForTokens',
        [0n, [weth.address, usdc.address], w[who], deadline],
        parseEther(amount(0.001, 0.02)),
      );
    },
    (ctx) => {
      const who = pick(TRADERS);
      return ctx.write(
        'trickle buy SLC',
        w[who],
        router,
        'UniswapV2Router02',
        'swapExactTokensForTokens',
        [
          parseUnits(amount(1, 50), 6),
          0n,
          [usdc.address, weth.address, slc.address],
          w[who],
          deadline,
        ],
      );
    },
    (ctx) => {
      const who = pick(DEVNET_USERS);
      return ctx.write(
        'trickle wrap',
        w[who],
        weth.address,
        'WETH9',
        'deposit',
        [],
        parseEther(amount(0.001, 0.01)),
      );
    },
    (ctx) => {
      const [from, to] = [pick(DEVNET_USERS), pick(DEVNET_USERS)];
      return ctx.write('trickle SLC transfer', w[from], slc.address, 'DevToken', 'transfer', [
        w[to],
        parseEther(amount(0.1, 20)),
      ]);
    },
    (ctx) =>
      // Mints never run dry, unlike transfers out of one holder.
      ctx.write('trickle item mint', w.deployer, manifest.nfts.items.address, 'DevItems', 'mint', [
        w[pick(DEVNET_USERS)],
        BigInt(1 + Math.floor(random() * 3)),
        BigInt(1 + Math.floor(random() * 3)),
      ]),
    (ctx) =>
      ctx.write(
        'trickle punk mint',
        w.deployer,
        manifest.nfts.punks.address,
        'DevCollection',
        'mint',
        [w[pick(DEVNET_USERS)] as Address],
      ),
  ];

  const tick = () => {
    if (stopped) return;
    const action = pick(actions);
    inFlight = ready
      .then((ctx) => action(ctx))
      .then(
        () => {
          sent++;
        },
        (err: unknown) => {
          failed++;
          if (!stopped)
            opts.log?.warn({ err: (err as Error).message }, 'devnet: trickle action failed');
        },
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.intervalMs ?? 2000);
      });
  };
  timer = setTimeout(tick, opts.intervalMs ?? 2000);

  let stopping: Promise<void> | undefined;
  return {
    count: () => sent,
    failures: () => failed,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        await inFlight;
        await ready.catch(() => undefined);
      })();
      return stopping;
    },
  };
}
