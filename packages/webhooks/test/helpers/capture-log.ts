import type { Logger } from '../../src/log.js';

/** A logger that records every call per level, for asserting what was (not) logged. */
export function captureLog(): Logger & { lines: Record<keyof Logger, string[]>; all(): string } {
  const lines: Record<keyof Logger, string[]> = { debug: [], info: [], warn: [], error: [] };
  const record =
    (level: keyof Logger) =>
    (...data: unknown[]): void => {
      lines[level].push(
        data.map((d) => (d instanceof Error ? `${d.name}: ${d.message}` : String(d))).join(' '),
      );
    };
  return {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    lines,
    all: () => Object.values(lines).flat().join('\n'),
  };
}
