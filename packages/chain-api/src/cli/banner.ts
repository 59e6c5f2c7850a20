import type { FastifyInstance } from 'fastify';
import type { ChainConfig } from '../chains/index.js';
import type { Devnet } from '../devnet/index.js';

/** What `serve` prints once listening: where the API is, a key, and requests to try. */
export function printBanner(opts: {
  app: FastifyInstance;
  host: string;
  port: number;
  chains: readonly ChainConfig[];
  devnet: Devnet | undefined;
  demoKey: string | undefined;
  /** A local receiver to show a webhook subscription with (devnet demo only). */
  demoWebhook?: { url: string; secret: string } | undefined;
}): void {
  const address = opts.app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
  const base = `http://${shownHost}:${port}`;
  const key = opts.demoKey ?? '<your API key>';
  const wallet = opts.devnet
    ? demoWallet(opts.devnet)
    : '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
  const chainIds = opts.chains.map((c) => c.chainId).join(',');
  const lines = [
    '',
    `Sluice chain API listening on ${base}`,
    `  chains: ${opts.chains.map((c) => `${c.name} (${c.chainId})`).join(', ')}`,
    ...(opts.devnet ? [`  devnet RPC: ${opts.devnet.rpcUrl}`] : []),
    `  docs:   ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  health: ${base}/health`,
    `  console: ${base}/   (in a browser: indexing progress, nodes, workers)`,
    `  explorer: ${base}/explorer/${wallet}`,
    opts.demoKey
      ? `  API key: ${opts.demoKey}`
      : '  API key: create one with `sluice-chain keys create`',
    '',
    'Try:',
    `  curl -s ${base}/v1/evm/supported-chains`,
    `  curl -s -H 'X-Sim-Api-Key: ${key}' '${base}/v1/evm/balances/${wallet}?chain_ids=${chainIds}&metadata=logo,pools'`,
    `  curl -s -H 'X-Sim-Api-Key: ${key}' '${base}/v1/evm/activity/${wallet}?limit=5'`,
    `  curl -s -H 'Authorization: Bearer ${key}' '${base}/v1/evm/collectibles/${wallet}?show_spam_scores=true'`,
    `  curl -s -H 'X-Sim-Api-Key: ${key}' '${base}/v1/evm/balances/${wallet}/token/native?chain_ids=${opts.chains[0]?.chainId ?? 1}'`,
    `  curl -s -H 'X-Sim-Api-Key: ${key}' '${base}/v1/evm/defi/positions/${wallet}'`,
    '',
    ...(opts.devnet && opts.demoWebhook ? webhookDemo(base, key, wallet, opts.demoWebhook) : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function demoWallet(devnet: Devnet): string {
  // Alice trades, holds NFTs, LP shares, v3 positions and vault shares, and gets airdrops in the
  // scenario: the most telling demo wallet.
  return devnet.manifest.wallets.alice;
}

/** A subscription aimed at the demo receiver: the devnet's trickle gives the wallet activity. */
function webhookDemo(
  base: string,
  key: string,
  wallet: string,
  hook: { url: string; secret: string },
): string[] {
  const body = JSON.stringify({
    name: 'devnet demo',
    url: hook.url,
    type: 'activities',
    addresses: [wallet],
    secret: hook.secret,
  });
  return [
    'Push: subscribe the demo receiver to this wallet (it verifies each signed delivery):',
    `  curl -s -X POST -H 'X-Sim-Api-Key: ${key}' -H 'content-type: application/json' '${base}/beta/evm/subscriptions/webhooks' -d '${body}'`,
    '',
  ];
}
