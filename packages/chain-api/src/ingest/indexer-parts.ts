import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import { BaseError, ConfigError } from '../errors/index.js';
import { Reconciler } from '../reconcile/index.js';
import { createRpcClient, type RpcClient } from '../rpc/index.js';
import type { IndexerMode, IndexerModeContext, ModeStatus } from './indexer-mode.js';
import type { ChainIndexerOptions } from './indexer-types.js';

/**
 * The chain's RPC client: the injected one, else one opened over the process's shared node
 * transport, else its own. A chain without an RPC URL is a configuration error.
 *
 * @example
 * const rpc = openChainRpc(chain, options, log, abort.signal);
 */
export function openChainRpc<S extends ModeStatus>(
  chain: ChainConfig,
  options: ChainIndexerOptions<S>,
  log: Logger,
  signal: AbortSignal,
): RpcClient {
  if (!options.rpc && !chain.rpcUrl) {
    throw new ConfigError(`RPC_URL_${chain.chainId}`, `chain ${chain.chainId} has no RPC URL`);
  }
  const rpcOptions = { ...options.rpcOptions, log, signal };
  const url = chain.rpcUrl as string;
  return (
    options.rpc ?? options.nodes?.open(url, rpcOptions) ?? createRpcClient({ ...rpcOptions, url })
  );
}

/** The chain's balance reconciler, with the chain's own read interval unless options override it. */
export function chainReconciler<S extends ModeStatus>(
  db: Database,
  rpc: RpcClient,
  chain: ChainConfig,
  options: ChainIndexerOptions<S>,
  log: Logger,
): Reconciler {
  // Wallets mode never indexes from genesis: balances come from the node, not from deltas.
  const reconcileFrom = chain.mode === 'wallets' && chain.startBlock === 0n ? 1n : chain.startBlock;
  return new Reconciler(db, rpc, chain.chainId, reconcileFrom, log, {
    ...(chain.reconcileEveryBlocks ? { everyBlocks: chain.reconcileEveryBlocks } : {}),
    ...options.reconcile,
  });
}

/** The chain's mode built by `options.mode`; a chain in wallets mode must get one. */
export function chainMode<S extends ModeStatus>(
  options: ChainIndexerOptions<S>,
  context: IndexerModeContext,
): IndexerMode<S> | undefined {
  const mode = options.mode?.(context);
  const { chain } = context;
  if (chain.mode === 'wallets' && !mode) {
    throw new BaseError(
      `chain ${chain.chainId} is in wallets mode: start it with the wallets mode wired in (startIndexers of src/wallets)`,
      { code: 'CONFIG_INVALID' },
    );
  }
  return mode;
}
