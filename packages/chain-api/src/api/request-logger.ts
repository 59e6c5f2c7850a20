import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** A logger that can say whether a level would be written (pino's `isLevelEnabled`). */
interface LevelAware extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

function isLevelAware(logger: FastifyBaseLogger): logger is LevelAware {
  return typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function';
}

/**
 * A request's logger whose pino child (with the request id bound) is made when the request first
 * logs at an enabled level. Fastify makes one child per request, and a pino child builds its own
 * level functions and redaction: on a cached answer that was a tenth of what the request
 * allocated, for a logger that at the default level never writes.
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAware,
    private readonly bindings: Bindings,
  ) {}

  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings);
    return this.#child;
  }

  #log(level: Level, args: unknown[]): void {
    // Once made, the child decides (its level may have been set apart from the parent's).
    const judge = this.#child && isLevelAware(this.#child) ? this.#child : this.parent;
    if (!judge.isLevelEnabled(level)) return;
    const child = this.#real();
    (child[level] as (...a: unknown[]) => void).apply(child, args);
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  // Methods, not arrow fields: one logger per request must not cost seven closures.
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a request logger made lazily when the child would inherit the
 * parent's level and serializers (a route with its own log level or serializers gets pino's child
 * at once, as does a logger that cannot tell its enabled levels).
 *
 * @example
 * import Fastify from 'fastify';
 * import { pino } from 'pino';
 * const app = Fastify({ loggerInstance: pino(), childLoggerFactory: requestLoggerFactory });
 */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (!isLevelAware(logger) || options.level !== undefined || options.serializers !== undefined) {
    return logger.child(bindings, options);
  }
  return new RequestLogger(logger, bindings);
}
