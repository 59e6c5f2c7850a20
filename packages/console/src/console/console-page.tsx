import { apiGet } from '../api-client.js';
import { formatNumber } from '../format.js';
import type { ConsoleStatus } from '../types.js';
import { useApi } from '../use-api.js';
import { ChainCard } from './chain-card.js';

const POLL_MS = 2_000;

/** The operator console: one live card per served chain. */
export function ConsolePage() {
  const status = useApi(() => apiGet<ConsoleStatus>('/v1/console/status'), [], POLL_MS);
  return (
    <>
      <h1>Indexing console</h1>
      <p class="muted" aria-live="polite">
        {status.data
          ? `Updated ${new Date(status.data.generated_at).toLocaleTimeString()} · refreshes every ${POLL_MS / 1000} s`
          : 'Loading…'}
      </p>
      {status.error && (
        <p class="error" role="alert">
          {status.error}
        </p>
      )}
      <div class="cards">
        {status.data?.chains.map((chain) => (
          <ChainCard key={chain.chain_id} chain={chain} />
        ))}
      </div>
      {status.data?.usage && (
        <section class="card">
          <h2>Compute units per key</h2>
          <ul>
            {status.data.usage.map((u) => (
              <li key={u.key}>
                {u.key}: {formatNumber(u.compute_units)}
              </li>
            ))}
          </ul>
        </section>
      )}
      {status.data?.subscriptions && (
        <section class="card">
          <h2>Subscription deliveries</h2>
          <p>
            {formatNumber(status.data.subscriptions.delivered)} delivered,{' '}
            {formatNumber(status.data.subscriptions.failed)} failed
          </p>
        </section>
      )}
    </>
  );
}
