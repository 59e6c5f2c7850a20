import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors/index.js';
import type { Env } from './env-readers.js';

/** A manual decision about one contract (NFT_SPAM_OVERRIDES). */
export type ManualClassification = 'spam' | 'not_spam';

/** Worker options that come from the environment (see docs/collectibles.md). */
export interface NftEnvOptions {
  ipfsGateway?: string;
  arweaveGateway?: string;
  allowPrivateHosts?: boolean;
  allowHosts?: string[];
  concurrency?: number;
  perHostConcurrency?: number;
  recheckIntervalMs?: number;
  fetchTimeoutMs?: number;
  maxBytes?: number;
  spamThreshold?: number;
  denyList?: string[];
  spamOverrides?: Array<[string, ManualClassification]>;
}

/**
 * Reads the NFT worker's settings from the environment: `NFT_IPFS_GATEWAY`, `NFT_ARWEAVE_GATEWAY`,
 * `NFT_ALLOW_PRIVATE_HOSTS` (true/false), `NFT_ALLOW_HOSTS` (host[:port],...), `NFT_CONCURRENCY`,
 * `NFT_PER_HOST_CONCURRENCY`, `NFT_URI_RECHECK_MS`, `NFT_FETCH_TIMEOUT_MS`, `NFT_MAX_BYTES`, `NFT_SPAM_THRESHOLD` (0-100), `NFT_SPAM_DENYLIST`
 * ([chainId:]0xaddress,...), `NFT_SPAM_DENYLIST_FILE` (one entry per line, `#` comments),
 * `NFT_SPAM_OVERRIDES` ([chainId:]0xaddress=spam|not_spam,...). Invalid values throw a
 * `ConfigError` naming the variable.
 *
 * @example
 * await startNftWorker({ db, chains, log, ...nftConfigFromEnv({ NFT_CONCURRENCY: '8' }) });
 */
export function nftConfigFromEnv(env: Env): NftEnvOptions {
  const out: NftEnvOptions = {};
  const str = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const int = (name: string, min: number, max: number) => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(name, `${name} must be an integer from ${min} to ${max}, got ${raw}`);
    }
    return value;
  };
  const list = (name: string) =>
    str(name)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);

  const ipfs = str('NFT_IPFS_GATEWAY');
  if (ipfs) out.ipfsGateway = ipfs;
  const ar = str('NFT_ARWEAVE_GATEWAY');
  if (ar) out.arweaveGateway = ar;
  const allowPrivate = str('NFT_ALLOW_PRIVATE_HOSTS');
  if (allowPrivate !== undefined) {
    if (!/^(true|false|1|0)$/i.test(allowPrivate)) {
      throw new ConfigError(
        'NFT_ALLOW_PRIVATE_HOSTS',
        `NFT_ALLOW_PRIVATE_HOSTS must be true or false, got ${allowPrivate}`,
      );
    }
    out.allowPrivateHosts = /^(true|1)$/i.test(allowPrivate);
  }
  const hosts = list('NFT_ALLOW_HOSTS');
  if (hosts) out.allowHosts = hosts;
  const concurrency = int('NFT_CONCURRENCY', 1, 256);
  if (concurrency !== undefined) out.concurrency = concurrency;
  const perHost = int('NFT_PER_HOST_CONCURRENCY', 1, 256);
  if (perHost !== undefined) out.perHostConcurrency = perHost;
  const recheck = int('NFT_URI_RECHECK_MS', 60_000, 365 * 86_400_000);
  if (recheck !== undefined) out.recheckIntervalMs = recheck;
  const timeout = int('NFT_FETCH_TIMEOUT_MS', 100, 300_000);
  if (timeout !== undefined) out.fetchTimeoutMs = timeout;
  const maxBytes = int('NFT_MAX_BYTES', 1_024, 100 * 1024 * 1024);
  if (maxBytes !== undefined) out.maxBytes = maxBytes;
  const threshold = int('NFT_SPAM_THRESHOLD', 0, 100);
  if (threshold !== undefined) out.spamThreshold = threshold;

  const deny = [...(list('NFT_SPAM_DENYLIST') ?? [])];
  const denyFile = str('NFT_SPAM_DENYLIST_FILE');
  if (denyFile) {
    let text: string;
    try {
      text = readFileSync(denyFile, 'utf8');
    } catch (error) {
      throw new ConfigError(
        'NFT_SPAM_DENYLIST_FILE',
        `NFT_SPAM_DENYLIST_FILE cannot be read: ${(error as Error).message}`,
      );
    }
    for (const line of text.split('\n')) {
      const entry = line.replace(/#.*/, '').trim();
      if (entry) deny.push(entry);
    }
  }
  for (const entry of deny) {
    if (!/^(\d+:)?0x[0-9a-fA-F]{40}$/.test(entry)) {
      throw new ConfigError(
        'NFT_SPAM_DENYLIST',
        `NFT_SPAM_DENYLIST entry must be [chainId:]0xaddress, got ${entry}`,
      );
    }
  }
  if (deny.length > 0) out.denyList = deny;

  const overrides = list('NFT_SPAM_OVERRIDES');
  if (overrides) {
    out.spamOverrides = overrides.map((entry) => {
      const match = /^((?:\d+:)?0x[0-9a-fA-F]{40})=(spam|not_spam)$/.exec(entry);
      if (!match?.[1] || !match[2]) {
        throw new ConfigError(
          'NFT_SPAM_OVERRIDES',
          `NFT_SPAM_OVERRIDES entry must be [chainId:]0xaddress=spam|not_spam, got ${entry}`,
        );
      }
      return [match[1], match[2] as ManualClassification];
    });
  }
  return out;
}
