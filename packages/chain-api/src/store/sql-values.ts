/** Text forms of values handed to PostgreSQL (bigint/number as decimal, dates as ISO). */
export const s = (v: bigint | number): string => v.toString();
export const n = (v: bigint | null): string | null => (v === null ? null : s(v));
export const iso = (d: Date): string => d.toISOString();

/** `iso` for many rows sharing few Date objects (a block's rows share its time). */
export function isoMemo(): (d: Date) => string {
  let last: Date | undefined;
  let text = '';
  return (d) => {
    if (d !== last) {
      last = d;
      text = d.toISOString();
    }
    return text;
  };
}
