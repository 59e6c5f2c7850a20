#!/usr/bin/env node
import { loadConfig } from './config.js';
import { type RunningServer, startServer } from './server.js';

function banner(server: RunningServer): string {
  const { url } = server;
  const k = url.startsWith('https') ? '-k ' : '';
  const lines = [
    `Sluice users listening on ${url} (storage: ${server.storage})`,
    ...(server.redirectUrl ? [`  HTTP ${server.redirectUrl} redirects to HTTPS`] : []),
    `  UI:       ${url}/users`,
    `  API docs: ${url}/docs (OpenAPI: ${url}/openapi.json)`,
    '  Try:',
    `    curl ${k}-i -X POST ${url}/add -H 'content-type: application/json' -d '{"id":1,"name":"Ada Lovelace","pro":"mathematician"}'`,
    `    curl ${k}${url}/users`,
    `    curl ${k}${url}/1`,
    `    curl ${k}-X PUT ${url}/1 -H 'content-type: application/json' -d '{"name":"Ada King","pro":"analyst"}'`,
    `    curl ${k}-i -X DELETE ${url}/1`,
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`sluice-users: ${(err as Error).message}\n`);
    process.exit(2);
  }
  let server: RunningServer;
  try {
    server = await startServer(config);
  } catch (err) {
    const e = err as Error;
    process.stderr.write(
      `sluice-users: cannot start: ${e.name === 'ConfigError' ? e.message : String(e.message ?? e)}\n`,
    );
    process.exit(e.name === 'ConfigError' ? 2 : 1);
  }
  process.stdout.write(banner(server));

  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      server.app.log.error('shutdown timed out; exiting with requests still open');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    server.close().then(
      () => {
        server.app.log.info('shut down cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

void main();
