import { apiGet } from '../api-client.js';
import { formatUsd } from '../format.js';
import type { DefiPosition } from '../types.js';
import { useApi } from '../use-api.js';

function label(p: DefiPosition): string {
  const pair = [p.token0?.symbol, p.token1?.symbol].filter(Boolean).join('/');
  return pair || p.token?.symbol || p.pool || '';
}

/** LP shares, v3 positions and vault shares (`/v1/evm/defi/positions`). */
export function DefiPositions({ address, chainIds }: { address: string; chainIds: string }) {
  const defi = useApi(
    () =>
      apiGet<{ positions: DefiPosition[] }>(
        `/v1/evm/defi/positions/${address}?chain_ids=${chainIds}`,
      ),
    [address, chainIds],
  );
  const rows = defi.data?.positions ?? [];
  return (
    <section class="card" aria-labelledby="defi-title">
      <h2 id="defi-title">DeFi positions</h2>
      {defi.error && <p class="error">{defi.error}</p>}
      {defi.data && rows.length === 0 && <p class="muted">No positions.</p>}
      {rows.length > 0 && (
        <ul class="defi">
          {rows.map((p, i) => (
            <li key={`${p.chain_id}-${i}`}>
              <strong>{p.protocol ?? p.type}</strong> <span class="muted">{p.type}</span> {label(p)}
              {p.positions && <span class="muted"> · {p.positions.length} positions</span>}
              <span class="num">{formatUsd(p.value_usd)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
