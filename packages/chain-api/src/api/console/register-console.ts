import type { Queryable } from '@sluice/db';
import type { FastifyInstance } from 'fastify';
import type { ChainConfig } from '../../chains/chain-config.js';
import { normalizeGateways } from '../../nft/gateways.js';
import type { RpcClient } from '../../rpc/create-rpc-client.js';
import { type KeyVerifier, requireApiKey } from '../auth.js';
import { createImageLoader, type ImageLoaderOptions } from '../image-proxy/image-loader.js';
import { createImageUrlSigner } from '../image-proxy/image-url-signer.js';
import type { StatusSource } from '../readiness.js';
import { consoleImageUrlsRoute } from '../routes/console-image-urls.js';
import { type ConsolePageOptions, consolePagesRoute } from '../routes/console-pages.js';
import { consoleStatusRoute } from '../routes/console-status.js';
import { imageProxyRoute } from '../routes/image-proxy.js';
import { type ConsoleAssets, loadConsoleAssets } from './console-assets.js';
import { createConsoleStatus } from './console-status.js';

/** The browser console, the wallet explorer and the image proxy. */
export interface ConsoleServerOptions {
  /** The built pages; default: `@sluice/console`'s dist when built; null: no pages. */
  assets?: ConsoleAssets | null;
  /** The devnet's demo key, filled in by the pages (never set it on a public server). */
  demoKey?: string | undefined;
  /** Image proxy: gateways, hosts exempt from the address check, limits. */
  images?: Partial<Omit<ImageLoaderOptions, 'gateways'>> & {
    ipfsGateway?: string | undefined;
    arweaveGateway?: string | undefined;
  };
}

/** The console page options, or undefined when the console is not built or turned off. */
export function consolePageOptions(
  opts: ConsoleServerOptions = {},
): ConsolePageOptions | undefined {
  const assets = opts.assets === null ? undefined : (opts.assets ?? loadConsoleAssets());
  return assets ? { assets, demoKey: opts.demoKey } : undefined;
}

/**
 * Registers `/explorer`, `/assets/*`, the signed `/images/v1/*` proxy (no key: the signature is
 * the permission) and the keyed `/v1/console/status` and `/v1/console/image-urls`.
 */
export async function registerConsole(
  app: FastifyInstance,
  opts: {
    page: ConsolePageOptions | undefined;
    options: ConsoleServerOptions | undefined;
    cursorSecret: string | Uint8Array;
    verifier: KeyVerifier;
    db: Queryable;
    chains: readonly ChainConfig[];
    statusSource: StatusSource;
    rpc: ReadonlyMap<number, RpcClient> | undefined;
  },
): Promise<void> {
  if (opts.page) await app.register(consolePagesRoute(opts.page));
  const { ipfsGateway, arweaveGateway, ...limits } = opts.options?.images ?? {};
  const signer = createImageUrlSigner(opts.cursorSecret);
  const loader = createImageLoader({
    ...limits,
    gateways: normalizeGateways({
      ...(ipfsGateway ? { ipfsGateway } : {}),
      ...(arweaveGateway ? { arweaveGateway } : {}),
    }),
  });
  app.addHook('onClose', async () => loader.close());
  await app.register(imageProxyRoute({ signer, loader }));
  const status = createConsoleStatus({
    db: opts.db,
    chains: opts.chains,
    statusSource: opts.statusSource,
    rpc: opts.rpc,
  });
  await app.register(
    async (keyed) => {
      keyed.addHook('onRequest', requireApiKey(opts.verifier));
      await keyed.register(consoleStatusRoute(status));
      await keyed.register(consoleImageUrlsRoute({ signer }));
    },
    { prefix: '/v1/console' },
  );
}
