import { readFileSync } from 'node:fs';
import { loadChainConfigs } from '../chains/index.js';
import type { AppConfig } from '../config/index.js';
import { countTracked, trackWallets } from '../store/wallets/tracked-store.js';
import { openStore } from './open-store.js';

const usage = `Usage:
  sluice-chain wallets track [--chain <chainId>] [--file <path>] [<address>...]
      start tracking wallets on the chains served in wallets mode (CHAINS_FILE "mode": "wallets"):
      their history is backfilled by the running indexer; --file reads one address per line
  sluice-chain wallets status [--chain <chainId>]   tracked wallets per status`;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * `sluice-chain wallets track|status`: pre-track a list of wallets (the indexer's leader picks
 * them up and backfills them) or count tracked wallets per status.
 *
 * @example
 * await walletsCommand(['track', '0xabc…'], config, console.log); // 0
 */
export async function walletsCommand(
  args: string[],
  config: AppConfig,
  out: (line: string) => void,
): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'track' && sub !== 'status') {
    out(usage);
    return 2;
  }
  let chainArg: string | undefined;
  const addresses: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '--chain') chainArg = rest[++i];
    else if (a === '--file') {
      const path = rest[++i];
      if (!path) {
        out(`--file needs a path\n\n${usage}`);
        return 2;
      }
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        out(`cannot read ${path}`);
        return 1;
      }
      // One address per line; `#` starts a comment.
      for (const line of text.split('\n')) {
        const a = (line.split('#')[0] ?? '').trim();
        if (a.length > 0) addresses.push(a);
      }
    } else addresses.push(a);
  }
  const bad = addresses.find((a) => !ADDRESS.test(a));
  if (bad !== undefined) {
    out(`not an address: "${bad.slice(0, 60)}" (expected 0x + 40 hex digits)`);
    return 2;
  }
  const modeChains = (await loadChainConfigs(config.chainEnv))
    .filter((c) => c.mode === 'wallets')
    .map((c) => c.chainId);
  const chainIds = chainArg === undefined ? modeChains : [Number(chainArg)];
  if (chainIds.length === 0 || chainIds.some((id) => !modeChains.includes(id))) {
    out(
      modeChains.length === 0
        ? 'no chain is served in wallets mode (set "mode": "wallets" in CHAINS_FILE)'
        : `--chain must be one of the wallets-mode chains: ${modeChains.join(', ')}`,
    );
    return 2;
  }
  if (sub === 'track' && addresses.length === 0) {
    out(`no addresses given\n\n${usage}`);
    return 2;
  }
  const db = await openStore(config);
  try {
    for (const id of chainIds) {
      if (sub === 'track') {
        const wallets = [...new Set(addresses.map((a) => a.toLowerCase()))];
        for (let i = 0; i < wallets.length; i += 10_000) {
          await trackWallets(db, id, wallets.slice(i, i + 10_000), { priority: 'bulk' });
        }
        out(`chain ${id}: ${wallets.length} wallets tracked (backfilled by the running indexer)`);
      } else {
        const counts = await countTracked(db, id);
        const parts = Object.entries(counts).map(([s, n]) => `${s} ${n}`);
        out(`chain ${id}: ${parts.length > 0 ? parts.join(', ') : 'no tracked wallets'}`);
      }
    }
    return 0;
  } finally {
    await db.close();
  }
}
