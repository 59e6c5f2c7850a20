import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConsoleAssets } from '../console/console-assets.js';

// The console's own scripts and styles only; data from this origin; images from the proxy
// (same origin) or inline `data:` images of on-chain NFTs.
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export interface ConsolePageOptions {
  assets: ConsoleAssets;
  /** The devnet's demo key, put in the page so it opens without asking. */
  demoKey?: string | undefined;
}

/** Sends the console's single page (it routes `/` and `/explorer/...` itself). */
export function sendConsolePage(reply: FastifyReply, opts: ConsolePageOptions): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CONSOLE_CSP)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(opts.assets.page(opts.demoKey));
}

/**
 * `GET /explorer`, `GET /explorer/{address}` (the wallet explorer page) and `GET /assets/{file}`
 * (the console's hashed, immutable scripts and styles). `/` is the landing route's.
 */
export function consolePagesRoute(opts: ConsolePageOptions) {
  return async (app: FastifyInstance) => {
    const page = {
      config: { errorFormat: 'error' as const, rateLimit: false as const },
      schema: { hide: true },
    };
    app.get('/explorer', page, async (_request, reply) => sendConsolePage(reply, opts));
    app.get('/explorer/:address', page, async (_request, reply) => sendConsolePage(reply, opts));
    app.get<{ Params: { file: string } }>('/assets/:file', page, async (request, reply) => {
      const asset = opts.assets.asset(request.params.file);
      if (!asset) return reply.code(404).send({ error: 'Not found' });
      return reply
        .header('content-type', asset.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(asset.body);
    });
  };
}
