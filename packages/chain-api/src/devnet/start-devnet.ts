import type { ChainConfig } from '../chains/chain-config.js';
import { type AnvilInstance, type AnvilSearch, findAnvilBinary, startAnvil } from './anvil.js';
import { compileContracts } from './compile.js';
import { devnetChainConfig } from './devnet-chain.js';
import type { DevnetManifest } from './manifest.js';
import { type MetadataServer, startMetadataServer } from './metadata-server.js';
import { type DevnetLogger, deployScenario, SCENARIO_SPAN_DAYS } from './scenario.js';
import { startTrickle, type Trickle } from './trickle.js';

export interface StartDevnetOptions {
  /** anvil's port; a free port by default. */
  port?: number;
  /** The metadata server's port; a free port by default. */
  metadataPort?: number;
  /** Keep adding seeded random activity after the scenario (default false). */
  trickle?: boolean | { intervalMs?: number; seed?: number };
  log?: DevnetLogger;
  /** Where to look for anvil (the configuration's ANVIL_PATH and PATH); default the npm package. */
  anvilSearch?: AnvilSearch;
  /** Compiled-contracts cache folder (the configuration's SLUICE_CONTRACTS_CACHE). */
  contractsCache?: string | undefined;
}

export interface Devnet {
  rpcUrl: string;
  port: number;
  /** The devnet's ChainConfig (31337, tagged default+devnet) with `rpcUrl` set. */
  chain: ChainConfig;
  manifest: DevnetManifest;
  /** Base URL of the NFT metadata server (trailing slash). */
  metadataUrl: string;
  anvil: AnvilInstance;
  /** Stops the trickle, anvil and the metadata server. Idempotent. */
  stop(): Promise<void>;
}

/**
 * A local chain with the demo scenario: anvil (genesis backdated so the scenario spans
 * {@link SCENARIO_SPAN_DAYS} days and ends now), the NFT metadata server, the deployed scenario
 * and, optionally, a trickle of new activity every ~2 s.
 *
 * @example
 * const devnet = await startDevnet({ trickle: true });
 * const chains = [devnet.chain];
 * await devnet.stop();
 */
export async function startDevnet(opts: StartDevnetOptions = {}): Promise<Devnet> {
  const genesisTimestamp = Math.floor(Date.now() / 1000) - (SCENARIO_SPAN_DAYS + 1) * 86_400;
  const started: { stop(): Promise<void> }[] = [];
  try {
    const [contracts, metadata, anvil] = await Promise.all([
      compileContracts({ cacheDir: opts.contractsCache }),
      startMetadataServer({ port: opts.metadataPort }).then((s: MetadataServer) => {
        started.push(s);
        return s;
      }),
      startAnvil({
        port: opts.port,
        genesisTimestamp,
        binary: findAnvilBinary(opts.anvilSearch),
      }).then((a) => {
        started.push(a);
        return a;
      }),
    ]);
    const manifest = await deployScenario(anvil.rpcUrl, {
      contracts,
      metadataBaseUrl: metadata.url,
      log: opts.log,
    });
    let trickle: Trickle | undefined;
    if (opts.trickle) {
      const t = typeof opts.trickle === 'object' ? opts.trickle : {};
      trickle = startTrickle(anvil.rpcUrl, manifest, { ...t, contracts, log: opts.log });
    }
    opts.log?.info({ rpcUrl: anvil.rpcUrl, metadataUrl: metadata.url }, 'devnet: ready');
    let stopping: Promise<void> | undefined;
    return {
      rpcUrl: anvil.rpcUrl,
      port: anvil.port,
      chain: devnetChainConfig(manifest, anvil.rpcUrl, metadata.url),
      manifest,
      metadataUrl: metadata.url,
      anvil,
      stop() {
        stopping ??= (async () => {
          await trickle?.stop();
          await Promise.all([anvil.stop(), metadata.stop()]);
        })();
        return stopping;
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((s) => s.stop()));
    throw err;
  }
}
