import { formatDuration, formatNumber, shortHex } from '../format.js';
import type { ChainConsoleStatus } from '../types.js';
import { RateChart } from './rate-chart.js';

function progressOf(chain: ChainConsoleStatus): number {
  if (chain.indexed_block === null || !chain.head_block) return 0;
  return Math.min(100, (chain.indexed_block / chain.head_block) * 100);
}

function capability(value: string | boolean | null): string {
  if (value === true || value === 'supported') return 'yes';
  if (value === false || value === 'unsupported' || value === null) return 'no';
  return 'unknown';
}

/** One chain: progress, rates, node capabilities, reorgs, reconciliation and workers. */
export function ChainCard({ chain }: { chain: ChainConsoleStatus }) {
  const progress = progressOf(chain);
  const last = chain.rates[chain.rates.length - 1];
  const state = chain.error ? 'error' : chain.ready ? 'ready' : 'syncing';
  return (
    <section
      class="card chain"
      aria-labelledby={`chain-${chain.chain_id}`}
      data-chain={chain.chain_id}
    >
      <div class="card-head">
        <h2 id={`chain-${chain.chain_id}`}>
          {chain.name} <span class="muted">({chain.chain_id})</span>
        </h2>
        <span class={`badge ${state}`}>{state}</span>
      </div>
      {chain.error && (
        <p class="error" role="alert">
          {chain.error}
        </p>
      )}
      <div class="progress-line">
        <progress max={100} value={progress} aria-label={`${chain.name} indexing progress`} />
        <span class="indexed" data-indexed={chain.indexed_block ?? ''}>
          block {formatNumber(chain.indexed_block)} of {formatNumber(chain.head_block)}
        </span>
      </div>
      <dl class="facts">
        <div>
          <dt>Behind head</dt>
          <dd>{formatDuration(chain.lag_seconds)}</dd>
        </div>
        <div>
          <dt>ETA</dt>
          <dd>{chain.ready ? 'caught up' : formatDuration(chain.eta_seconds)}</dd>
        </div>
        <div>
          <dt>Blocks/s</dt>
          <dd>{formatNumber(last?.blocks_per_second)}</dd>
        </div>
        <div>
          <dt>Events/s</dt>
          <dd>{formatNumber(last?.events_per_second)}</dd>
        </div>
      </dl>
      <RateChart samples={chain.rates} label={`${chain.name}: blocks and events per second`} />
      <h3>Node</h3>
      <dl class="facts">
        <div>
          <dt>Traces</dt>
          <dd>{capability(chain.capabilities.traces)}</dd>
        </div>
        <div>
          <dt>Archive reads</dt>
          <dd>{capability(chain.capabilities.archive)}</dd>
        </div>
        <div>
          <dt>Multicall3</dt>
          <dd title={chain.capabilities.multicall3 ?? undefined}>
            {chain.capabilities.multicall3 ? shortHex(chain.capabilities.multicall3) : 'no'}
          </dd>
        </div>
        <div>
          <dt>Reorgs seen</dt>
          <dd>
            {chain.reorgs
              ? `${chain.reorgs.count}${chain.reorgs.count > 0 ? ` (deepest ${chain.reorgs.deepest})` : ''}`
              : 'not reported'}
          </dd>
        </div>
      </dl>
      {chain.reconcile?.enabled && (
        <>
          <h3>Reconciliation</h3>
          <dl class="facts">
            <div>
              <dt>Non-conserving tokens</dt>
              <dd>{formatNumber(chain.reconcile.non_conserving_tokens)}</dd>
            </div>
            <div>
              <dt>Reads per batch</dt>
              <dd>{formatNumber(chain.reconcile.reads_per_batch)}</dd>
            </div>
            <div>
              <dt>Total reads</dt>
              <dd>{formatNumber(chain.reconcile.total_reads)}</dd>
            </div>
          </dl>
        </>
      )}
      <h3>Workers</h3>
      <table class="workers">
        <thead>
          <tr>
            <th scope="col">Worker</th>
            <th scope="col">Queue</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {chain.workers.map((w) => (
            <tr key={w.name}>
              <td>{w.name}</td>
              <td>{formatNumber(w.queue)}</td>
              <td>{w.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
