import type { Logger } from 'pino';
import { startDevnet } from '../devnet/index.js';

/** `sluice-chain devnet`: anvil with the demo scenario and a trickle of new activity. */
export async function devnetCommand(log: Logger): Promise<{ stop(): Promise<void> }> {
  const devnet = await startDevnet({ trickle: true, log });
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
