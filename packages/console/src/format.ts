const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const compactUsd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumFractionDigits: 2,
});
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });

export function formatUsd(value: number | undefined | null): string {
  if (value === undefined || value === null || !Number.isFinite(value)) return '—';
  return Math.abs(value) >= 1e7 ? compactUsd.format(value) : usd.format(value);
}

export function formatNumber(value: number | undefined | null): string {
  return value === undefined || value === null ? '—' : plain.format(value);
}

/** A raw integer amount with `decimals` as a short decimal string (no float rounding of the raw). */
export function formatAmount(raw: string | undefined, decimals: number | undefined): string {
  if (!raw) return '—';
  if (!decimals) return plain.format(Number(raw));
  const padded = raw.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).slice(0, 4).replace(/0+$/, '');
  const grouped = BigInt(whole).toLocaleString('en-US');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

export function shortHex(value: string | undefined): string {
  if (!value) return '—';
  return value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').slice(0, 16);
}
