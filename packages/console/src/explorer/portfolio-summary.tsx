import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { apiGet } from '../api-client.js';
import { formatUsd } from '../format.js';
import type { PortfolioPoint } from '../types.js';
import { useApi } from '../use-api.js';

/** Total value today and its daily history (`/v1/evm/portfolio`). */
export function PortfolioSummary({ address, chainIds }: { address: string; chainIds: string }) {
  const portfolio = useApi(
    () =>
      apiGet<{ points: PortfolioPoint[] }>(
        `/v1/evm/portfolio/${address}?chain_ids=${chainIds}&days=30`,
      ),
    [address, chainIds],
  );
  const points = portfolio.data?.points ?? [];
  const latest = points[points.length - 1];
  return (
    <section class="card" aria-labelledby="total-title">
      <h2 id="total-title">Total value</h2>
      <p class="total" data-testid="total-value">
        {portfolio.data ? formatUsd(latest?.value_usd ?? 0) : '…'}
      </p>
      {portfolio.error && <p class="error">{portfolio.error}</p>}
      {points.length > 1 && <ValueChart points={points} />}
    </section>
  );
}

function ValueChart({ points }: { points: PortfolioPoint[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const chart = new uPlot(
      {
        width: Math.max(220, Math.min(element.clientWidth || 320, 900)),
        height: 160,
        cursor: { show: false },
        legend: { show: false },
        axes: [{ size: 28 }, { size: 60, values: (_u, ticks) => ticks.map((v) => formatUsd(v)) }],
        series: [{}, { label: 'USD', stroke: '#0b57d0', width: 2, fill: 'rgba(11,87,208,.08)' }],
      },
      [points.map((p) => Date.parse(p.time) / 1000), points.map((p) => p.value_usd)],
      element,
    );
    return () => chart.destroy();
  }, [points]);
  return <div class="chart" ref={host} role="img" aria-label="Portfolio value over 30 days" />;
}
