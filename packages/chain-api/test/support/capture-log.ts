import { Writable } from 'node:stream';
import pino from 'pino';

/** A parsed pino line (the fields the tests read). */
export interface LogLine {
  level: number;
  msg: string;
  err?: string;
}

/**
 * A pino logger at `info` whose lines are parsed into `lines`, for tests that assert on logs.
 *
 * @example
 * const { log, lines } = captureLog();
 * expect(lines.some((l) => l.msg === 'leader lock acquired')).toBe(true);
 */
export function captureLog(): { log: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}
