import { useState } from 'preact/hooks';
import { apiGet } from '../api-client.js';
import { formatAmount, formatTime, formatUsd, shortHex } from '../format.js';
import type { ActivityItem } from '../types.js';
import { useApi } from '../use-api.js';

const PAGE = 10;
const ICONS: Record<string, string> = {
  send: '↗',
  receive: '↙',
  swap: '⇄',
  mint: '✚',
  burn: '✖',
  approve: '✓',
  call: '⚙',
  transfer: '→',
};

/** The activity feed, newest first, paged with the API's `next_offset` cursors. */
export function ActivityFeed({ address, chainIds }: { address: string; chainIds: string }) {
  // Cursors of the pages seen so far: [undefined (first page), page 2's, ...].
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState(0);
  const [scope, setScope] = useState(`${address}|${chainIds}`);
  if (scope !== `${address}|${chainIds}`) {
    setScope(`${address}|${chainIds}`);
    setCursors([undefined]);
    setPage(0);
  }
  const cursor = cursors[page];
  const feed = useApi(
    () =>
      apiGet<{ activity: ActivityItem[]; next_offset?: string }>(
        `/v1/evm/activity/${address}?chain_ids=${chainIds}&limit=${PAGE}${cursor ? `&offset=${encodeURIComponent(cursor)}` : ''}`,
      ),
    [address, chainIds, cursor],
  );
  const next = feed.data?.next_offset;
  return (
    <section class="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      {feed.error && <p class="error">{feed.error}</p>}
      <ol class="activity" aria-busy={feed.loading}>
        {(feed.data?.activity ?? []).map((a, i) => (
          <li key={`${a.tx_hash}-${a.id ?? i}`}>
            <span class={`icon type-${a.type}`} aria-hidden="true">
              {ICONS[a.type] ?? '•'}
            </span>
            <span class="what">
              <strong>{a.type}</strong>{' '}
              {a.value !== undefined &&
                `${formatAmount(a.value, a.token_metadata?.decimals ?? (a.asset_type === 'native' ? 18 : undefined))} ${a.token_metadata?.symbol ?? ''}`}
              <span class="muted small">
                {' '}
                {formatTime(a.block_time)} · block {a.block_number} · tx {shortHex(a.tx_hash)}
              </span>
            </span>
            <span class="num">{a.value_usd !== undefined ? formatUsd(a.value_usd) : ''}</span>
          </li>
        ))}
      </ol>
      {feed.data && feed.data.activity.length === 0 && <p class="muted">No activity.</p>}
      <div class="pager">
        <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Newer
        </button>
        <span class="muted" data-testid="activity-page">
          Page {page + 1}
        </span>
        <button
          type="button"
          disabled={!next || feed.loading}
          onClick={() => {
            setCursors([...cursors.slice(0, page + 1), next]);
            setPage(page + 1);
          }}
        >
          Older
        </button>
      </div>
    </section>
  );
}
