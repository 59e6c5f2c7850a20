import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { RateSample } from '../types.js';

/** Blocks/s and events/s over the recent samples, as a small uPlot line chart. */
export function RateChart({ samples, label }: { samples: RateSample[]; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data: uPlot.AlignedData = [
    samples.map((s) => s.t),
    samples.map((s) => s.blocks_per_second),
    samples.map((s) => s.events_per_second),
  ];
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const width = Math.max(200, Math.min(element.clientWidth || 320, 640));
    const chart = new uPlot(
      {
        width,
        height: 120,
        legend: { show: true },
        cursor: { show: false },
        axes: [{ size: 28 }, { size: 44 }],
        series: [
          {},
          { label: 'blocks/s', stroke: '#0b57d0', width: 2 },
          { label: 'events/s', stroke: '#b4530a', width: 2 },
        ],
      },
      data,
      element,
    );
    plot.current = chart;
    return () => {
      chart.destroy();
      plot.current = null;
    };
  }, []);
  useEffect(() => {
    plot.current?.setData(data);
  });
  return <div class="chart" ref={host} role="img" aria-label={label} />;
}
