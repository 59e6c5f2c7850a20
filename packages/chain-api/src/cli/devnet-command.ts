import type { Logger } from 'pino';
import type { AppConfig } from '../config/index.js';
import { startDevnet } from '../devnet/index.js';
import { devnetPaths } from './resolve-chains.js';

/** `sluice-chain devnet`: anvil with the demo scenario and a trickle of new activity. */
export async function devnetCommand(
  config: Pick<AppConfig, 'devnet'>,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const devnet = await startDevnet({ trickle: true, log, ...devnetPaths(config) });
  process.stdout.write(
    [
      '',
      `Devnet (chain ${devnet.chain.chainId}) at ${devnet.rpcUrl}`,
      `Index it with: RPC_URL_${devnet.chain.chainId}=${devnet.rpcUrl} sluice-chain serve`,
      'Scenario manifest:',
      JSON.stringify(devnet.manifest, null, 2),
      '',
    ].join('\n'),
  );
  return { stop: () => devnet.stop() };
}
