import type { Logger } from 'pino';
import { type ChainConfig, loadChainConfigs, redactRpcUrl } from '../chains/index.js';
import { type AppConfig, ConfigError } from '../config/index.js';
import type { Devnet } from '../devnet/index.js';

/** The configuration's anvil search path and contracts cache, as `startDevnet` options. */
export function devnetPaths(config: Pick<AppConfig, 'devnet'>) {
  return {
    anvilSearch: { ANVIL_PATH: config.devnet.anvilPath, PATH: config.devnet.path },
    contractsCache: config.devnet.contractsCache,
  };
}

/**
 * The chains to serve: RPC_URL_<id>/CHAINS_FILE, plus the local devnet when asked for (it then
 * replaces any configured 31337 entry). No chain at all is a configuration error.
 */
export async function resolveChains(
  withDevnet: boolean,
  config: Pick<AppConfig, 'chainEnv' | 'devnet'>,
  log: Logger,
): Promise<{ chains: ChainConfig[]; devnet: Devnet | undefined }> {
  let chains = await loadChainConfigs(config.chainEnv);
  let devnet: Devnet | undefined;
  if (withDevnet) {
    log.info('starting the devnet (anvil, contracts, scenario)');
    const { startDevnet } = await import('../devnet/index.js');
    devnet = await startDevnet({ trickle: true, log, ...devnetPaths(config) });
    const local = devnet.chain;
    chains = [...chains.filter((c) => c.chainId !== local.chainId), local].sort(
      (a, b) => a.chainId - b.chainId,
    );
  }
  if (chains.length === 0) {
    throw new ConfigError(
      'RPC_URL_<chainId>',
      'no chain to index: set RPC_URL_<chainId> (e.g. RPC_URL_1=https://...) or CHAINS_FILE, or run `sluice-chain serve --devnet`',
    );
  }
  for (const chain of chains) {
    log.info(
      {
        chain_id: chain.chainId,
        name: chain.name,
        rpc: chain.rpcUrl && redactRpcUrl(chain.rpcUrl),
      },
      'chain configured',
    );
  }
  return { chains, devnet };
}
