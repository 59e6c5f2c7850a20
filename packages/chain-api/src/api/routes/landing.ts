import { escapeHtml, prefersHtml } from '@sluice/html-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChainConfig } from '../../chains/chain-config.js';
import { sendHtmlPage } from '../html/page.js';
import { type ConsolePageOptions, sendConsolePage } from './console-pages.js';

export interface LandingOptions {
  chains: readonly ChainConfig[];
  version: string;
  /** Wallet used in the example requests (the devnet's demo wallet under `npm start`). */
  exampleWallet?: string | undefined;
  /** The built console: browsers get it at `/`, and this page moves to `/start`. */
  console?: ConsolePageOptions | undefined;
}

/** The example requests of the landing page, relative to the server's origin. */
export function exampleRequests(opts: LandingOptions): { title: string; path: string }[] {
  const wallet = opts.exampleWallet ?? '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
  const ids = opts.chains.map((c) => c.chainId).join(',');
  const first = opts.chains[0]?.chainId ?? 1;
  return [
    {
      title: 'Balances with logos, spam excluded',
      path: `/v1/evm/balances/${wallet}?chain_ids=${ids}&metadata=url,logo&exclude_spam_tokens`,
    },
    { title: 'Activity', path: `/v1/evm/activity/${wallet}?limit=25` },
    { title: 'Collectibles', path: `/v1/evm/collectibles/${wallet}?limit=50` },
    {
      title: 'One token balance',
      path: `/v1/evm/balances/${wallet}/token/native?chain_ids=${first}`,
    },
    {
      title: 'DeFi positions (LP shares, v3 NFTs, vaults)',
      path: `/v1/evm/defi/positions/${wallet}`,
    },
  ];
}

/**
 * `GET /`: what this server is, where its docs and health are, and requests to try, as JSON for
 * API clients; browsers get the console when it is built, else the HTML page that `/start`
 * always serves.
 *
 * @example
 * await app.register(landingRoute({ chains, version: '1.0.0' }));
 */
export function landingRoute(opts: LandingOptions) {
  return async (app: FastifyInstance) => {
    app.get(
      '/',
      { config: { errorFormat: 'error' }, schema: { hide: true } },
      async (request, reply) => {
        if (!prefersHtml(request.headers.accept)) {
          const examples = exampleRequests(opts);
          const chains = opts.chains.map((c) => ({ id: c.chainId, name: c.name }));
          return reply.header('cache-control', 'no-cache').send({
            name: 'Sluice chain API',
            description:
              'Self-hosted EVM wallet data (activity, balances, token balances, collectibles, DeFi positions), Sim-compatible /v1/evm/... routes.',
            version: opts.version,
            chains,
            links: {
              docs: '/docs',
              openapi: '/openapi.json',
              health: '/health',
              supported_chains: '/v1/evm/supported-chains',
            },
            authentication:
              'X-Sim-Api-Key: <key> or Authorization: Bearer <key> on /v1/evm/* (not supported-chains)',
            examples,
          });
        }
        if (opts.console) return sendConsolePage(reply, opts.console);
        return startPage(request, reply, opts);
      },
    );
    app.get(
      '/start',
      { config: { errorFormat: 'error' }, schema: { hide: true } },
      async (request, reply) => startPage(request, reply, opts),
    );
  };
}

/** The plain HTML page: links, and the example requests as curl commands. */
function startPage(request: FastifyRequest, reply: FastifyReply, opts: LandingOptions) {
  const examples = exampleRequests(opts);
  const chains = opts.chains.map((c) => ({ id: c.chainId, name: c.name }));
  const origin = `${request.protocol}://${request.host}`;
  const curl = (path: string) => `curl -H 'X-Sim-Api-Key: YOUR_KEY' '${origin}${path}'`;
  const body = `<h1>Sluice chain API</h1>
<p class="muted">Version ${escapeHtml(opts.version)} · self-hosted EVM wallet data, Sim-compatible <code>/v1/evm/...</code> routes.</p>
<p>Serving ${chains.map((c) => `${escapeHtml(c.name)} (${c.id})`).join(', ') || 'no chain'}.</p>
<ul>
<li><a href="/">Console</a> and <a href="/explorer">wallet explorer</a> (in a browser)</li>
<li><a href="/docs">API docs</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
<li><a href="/health">Health</a> (per-chain indexing status)</li>
<li><a href="/v1/evm/supported-chains">Supported chains</a> (no key needed)</li>
</ul>
<h2>Try</h2>
<p>Every <code>/v1/evm/*</code> route but supported-chains needs an API key in <code>X-Sim-Api-Key</code> (or <code>Authorization: Bearer</code>); <code>npm start</code> prints one.</p>
${examples.map((e) => `<h3>${escapeHtml(e.title)}</h3>\n<pre>${escapeHtml(curl(e.path))}</pre>`).join('\n')}
`;
  return sendHtmlPage(reply, 200, 'Home', body);
}
