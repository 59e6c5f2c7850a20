import type { Logger } from 'pino';
import { type ChainConfig, loadChainConfigs, redactRpcUrl } from '../chains/index.js';
import { ConfigError } from '../config.js';
import type { Devnet } from '../devnet/index.js';

/**
 * The chains to serve: RPC_URL_<id>/CHAINS_FILE, plus the local devnet when asked for (it then
 * replaces any configured 31337 entry). No chain at all is a configuration error.
 */
export async function resolveChains(
  withDevnet: boolean,
  env: NodeJS.ProcessEnv,
  log: Logger,
): Promise<{ chains: ChainConfig[]; devnet: Devnet | undefined }> {
  let chains = await loadChainConfigs(env);
  let devnet: Devnet | undefined;
  if (withDevnet) {
    log.info('starting the devnet (anvil, contracts, scenario)');
    const { startDevnet } = await import('../devnet/index.js');
    devnet = await startDevnet({ trickle: true, log });
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
