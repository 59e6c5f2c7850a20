import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createSecureContext } from 'node:tls';
import { migrate, openDatabase } from '@sluice/db';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type Config, ConfigError } from './config.js';
import { redactRequestLog } from './http/redact-request-log.js';
import { userMigrations } from './store/migrations.js';
import { createSqlUserStore } from './store/sql-user-store.js';

export interface RunningServer {
  app: FastifyInstance;
  /** The base URL clients should use, e.g. `https://localhost:3000`. */
  url: string;
  /** The plain-HTTP redirect URL when HTTP_REDIRECT_PORT is set. */
  redirectUrl: string | undefined;
  /** Where the data lives, for the start-up banner (never includes credentials). */
  storage: string;
  /** Stops accepting connections, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

function readTlsFile(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(
      `Cannot read ${name} (${path}): ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '127.0.0.1' || host === '::1') {
    return 'localhost';
  }
  return host.includes(':') ? `[${host}]` : host;
}

const HOST_HEADER = /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i;

function startRedirect(port: number, host: string, httpsPort: number): Promise<Server> {
  const server = createServer((req, res) => {
    // Keep the hostname the client used (validated, so the header cannot inject a URL).
    const requested = (req.headers.host ?? '').replace(/:\d+$/, '');
    const hostname = HOST_HEADER.test(requested) ? requested : displayHost(host);
    res.writeHead(308, { location: `https://${hostname}:${httpsPort}${req.url ?? '/'}` });
    res.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/**
 * Opens the database (PostgreSQL or PGlite), runs migrations, and listens.
 *
 * @example
 * const server = await startServer(loadConfig());
 * process.once('SIGTERM', () => server.close());
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const https = config.tls
    ? {
        key: readTlsFile('TLS_KEY_FILE', config.tls.keyFile),
        cert: readTlsFile('TLS_CERT_FILE', config.tls.certFile),
      }
    : undefined;
  if (https) {
    // Check the pair before touching the database, so a bad file is a clear start-up error.
    try {
      createSecureContext(https);
    } catch (err) {
      throw new ConfigError(
        `TLS_KEY_FILE/TLS_CERT_FILE are not a valid key and certificate: ${(err as Error).message}`,
      );
    }
  }
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    applicationName: 'sluice-users',
    statementTimeoutMs: config.dbStatementTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
  });
  let app: FastifyInstance;
  try {
    await migrate(db, userMigrations);
    app = await buildApp({
      // PGlite's folder belongs to this process alone, so it is the only writer.
      store: createSqlUserStore(db, { soleWriter: db.kind === 'pglite' }),
      databaseKind: db.kind,
      logger: { level: config.logLevel, serializers: { req: redactRequestLog } },
      https,
      bodyLimit: config.bodyLimit,
      bodyTimeoutMs: config.bodyTimeoutMs,
    });
  } catch (err) {
    await db.close();
    if (https && err instanceof Error && /key|cert|PEM|asn1/i.test(err.message)) {
      throw new ConfigError(
        `TLS_KEY_FILE/TLS_CERT_FILE are not a valid key and certificate: ${err.message}`,
      );
    }
    throw err;
  }
  // Runs after in-flight requests finished: the pool closes last.
  app.addHook('onClose', async () => {
    await db.close();
  });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `${https ? 'https' : 'http'}://${displayHost(config.host)}:${port}`;

  let redirect: Server | undefined;
  if (https && config.httpRedirectPort !== undefined) {
    try {
      redirect = await startRedirect(config.httpRedirectPort, config.host, port);
    } catch (err) {
      await app.close();
      throw err;
    }
  }
  const redirectAddress = redirect?.address();
  const redirectUrl =
    typeof redirectAddress === 'object' && redirectAddress
      ? `http://${displayHost(config.host)}:${redirectAddress.port}`
      : undefined;

  let closing: Promise<void> | undefined;
  return {
    app,
    url,
    redirectUrl,
    storage: db.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`,
    close() {
      closing ??= (async () => {
        if (redirect) {
          const r = redirect;
          await new Promise<void>((resolve) => r.close(() => resolve()));
          r.closeAllConnections();
        }
        // Keep-alive sockets that finish their last response while we close would otherwise
        // hold the exit until the client drops them; close each as soon as it goes idle.
        const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
        try {
          await app.close();
        } finally {
          clearInterval(sweep);
        }
      })();
      return closing;
    },
  };
}
