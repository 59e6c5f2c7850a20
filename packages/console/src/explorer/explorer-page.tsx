import { useState } from 'preact/hooks';
import { publicGet } from '../api-client.js';
import type { SupportedChain } from '../types.js';
import { useApi } from '../use-api.js';
import { ActivityFeed } from './activity-feed.js';
import { BalancesTable } from './balances-table.js';
import { CollectiblesGallery } from './collectibles-gallery.js';
import { DefiPositions } from './defi-positions.js';
import { PortfolioSummary } from './portfolio-summary.js';
import { SearchBox } from './search-box.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** `/explorer/{address}`: what a wallet holds and did, all from the public endpoints. */
export function ExplorerPage({ address }: { address: string }) {
  const chains = useApi(
    () => publicGet<{ chains: SupportedChain[] }>('/v1/evm/supported-chains'),
    [],
  );
  const [chainId, setChainId] = useState('');
  const served = chains.data?.chains ?? [];
  // `chain_ids` of every request: one chosen chain, or all this server serves.
  const chainIds = chainId || served.map((c) => c.chain_id).join(',');
  const valid = ADDRESS.test(address);
  return (
    <>
      <h1>Wallet explorer</h1>
      <SearchBox initial={address} />
      {address !== '' && !valid && (
        <p class="error" role="alert">
          Not a wallet address.
        </p>
      )}
      {valid && chains.data && (
        <>
          <div class="row wallet-head">
            <p class="mono wallet">{address.toLowerCase()}</p>
            <label>
              Chain{' '}
              <select
                value={chainId}
                onChange={(e) => setChainId((e.currentTarget as HTMLSelectElement).value)}
              >
                <option value="">All chains</option>
                {served.map((c) => (
                  <option key={c.chain_id} value={String(c.chain_id)}>
                    {c.name}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <PortfolioSummary address={address} chainIds={chainIds} />
          <BalancesTable address={address} chainIds={chainIds} />
          <ActivityFeed address={address} chainIds={chainIds} />
          <CollectiblesGallery address={address} chainIds={chainIds} />
          <DefiPositions address={address} chainIds={chainIds} />
        </>
      )}
      {chains.error && (
        <p class="error" role="alert">
          {chains.error}
        </p>
      )}
    </>
  );
}
