import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { redactRequestLog } from './redact-request-log.js';

describe('redactRequestLog', () => {
  it('logs the path but never the query string', async () => {
    const lines: string[] = [];
    const app = Fastify({
      logger: {
        level: 'info',
        serializers: { req: redactRequestLog },
        stream: { write: (line: string) => lines.push(line) },
      },
    });
    app.get('/edit', async () => 'ok');
    await app.inject('/edit?id=1&name=Ada%20Lovelace&pro=math');
    await app.inject('/edit');
    await app.close();
    const logged = lines.join('\n');
    expect(logged).toContain('"url":"/edit?[redacted]"');
    expect(logged).toContain('"url":"/edit"');
    expect(logged).not.toContain('Lovelace');
  });
});
