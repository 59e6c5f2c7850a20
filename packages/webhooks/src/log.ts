/**
 * The logger interface used everywhere; any subset can be passed, the rest gets defaults.
 * Declared as methods so narrower loggers fit, e.g. `{ error: (e: AggregateError) => void }`
 * or `{ warn: (message: string) => void }` (method parameters are checked bivariantly).
 */
export interface Logger {
  debug(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
}

type Level = keyof Logger;

/** The object `createLogger` was given, kept so `isSilent` can look at it at call time. */
const SOURCE: unique symbol = Symbol('sluice.logger.source');

interface SourcedLogger extends Logger {
  [SOURCE]: Partial<Logger>;
}

/**
 * Whether `log[level]` would do nothing right now (a `createLogger` logger whose source has no
 * such method, for `debug`/`info`), so a caller can skip building a message nobody reads.
 *
 * @example
 * ```ts
 * if (!isSilent(log, 'debug')) log.debug(`${name} event received (id: ${id})`);
 * ```
 */
export function isSilent(log: Logger, level: 'debug' | 'info'): boolean {
  const source = (log as Partial<SourcedLogger>)[SOURCE];
  return source !== undefined && typeof source[level] !== 'function';
}

/**
 * Fills in a partial logger: `debug`/`info` are silent, `warn`/`error` go to the console.
 * Methods are looked up on the object passed in at each call (as `@octokit/webhooks` does), so
 * replacing `logger.warn` later takes effect; that object is not modified.
 *
 * @example
 * ```ts
 * const log = createLogger({ info: console.info }); // debug silent, warn/error on console
 * ```
 */
export function createLogger(logger: Partial<Logger> = {}): Logger {
  const source: Partial<Logger> = logger ?? {};
  const method =
    (level: Level, fallback: ((...data: unknown[]) => void) | undefined) =>
    (...data: unknown[]): void => {
      const fn = source[level];
      if (typeof fn === 'function') fn.apply(source, data);
      else fallback?.(...data);
    };
  const log: SourcedLogger = {
    debug: method('debug', undefined),
    info: method('info', undefined),
    warn: method('warn', (...data) => console.warn(...data)),
    error: method('error', (...data) => console.error(...data)),
    [SOURCE]: source,
  };
  return log;
}

/**
 * Calls `log[level]` and never throws: a logger that throws (e.g. one that inspects what it is
 * given) must not stop a request from being answered. Its failure goes to `console.error`.
 *
 * @example
 * ```ts
 * logSafely(log, 'error', aggregateError);
 * ```
 */
export function logSafely(log: Logger, level: Level, ...data: unknown[]): void {
  try {
    log[level](...data);
  } catch (failure) {
    try {
      console.error(`@sluice/webhooks: log.${level}() threw`, failure);
    } catch {
      // Nothing left to report to.
    }
  }
}
