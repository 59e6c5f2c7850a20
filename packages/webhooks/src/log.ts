/** The logger interface used everywhere; any subset can be passed, the rest gets defaults. */
export interface Logger {
  debug: (...data: unknown[]) => void;
  info: (...data: unknown[]) => void;
  warn: (...data: unknown[]) => void;
  error: (...data: unknown[]) => void;
}

const noop = (): void => {};

/**
 * Whether `fn` is the silent default filled in by `createLogger`, so a caller can skip building
 * a message nobody reads.
 *
 * @example
 * ```ts
 * if (!isSilent(log.debug)) log.debug(`${name} event received (id: ${id})`);
 * ```
 */
export function isSilent(fn: (...data: unknown[]) => void): boolean {
  return fn === noop;
}

/**
 * Fills in a partial logger: `debug`/`info` are silent, `warn`/`error` go to the console.
 * Returns a new object; the one passed in is not modified.
 *
 * @example
 * ```ts
 * const log = createLogger({ info: console.info }); // debug silent, warn/error on console
 * ```
 */
export function createLogger(logger: Partial<Logger> = {}): Logger {
  return {
    debug: typeof logger.debug === 'function' ? logger.debug.bind(logger) : noop,
    info: typeof logger.info === 'function' ? logger.info.bind(logger) : noop,
    warn: typeof logger.warn === 'function' ? logger.warn.bind(logger) : console.warn.bind(console),
    error:
      typeof logger.error === 'function' ? logger.error.bind(logger) : console.error.bind(console),
  };
}
