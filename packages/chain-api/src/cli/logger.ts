import { type Logger, pino } from 'pino';

/**
 * The process logger: JSON lines on stderr-free stdout, API keys and authorization headers
 * redacted wherever they might appear (request headers, error contexts).
 */
export function createLogger(level: string, name = 'sluice-chain'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: [
        'req.headers["x-sim-api-key"]',
        'req.headers.authorization',
        'headers["x-sim-api-key"]',
        'headers.authorization',
        'apiKey',
        'key',
        '*.apiKey',
      ],
      censor: '[redacted]',
    },
  });
}
