import { type Database, openDatabase } from '@sluice/db';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/index.js';
import { ReadRouter } from '../replicas/read-router.js';
import { ReadServer, serverName } from '../replicas/read-server.js';

/**
 * The read router over DATABASE_READ_URL's standbys, with `primary` (the API's pool on
 * DATABASE_URL) as the fallback. Standbys are not contacted here: an unreachable one starts
 * down and is retried in the background. `searchPath` puts a schema first on the standbys'
 * path (the devnet store).
 *
 * @example
 * const router = await openReadRouter(config, apiDb, log);
 */
export async function openReadRouter(
  config: AppConfig,
  primary: Database,
  log: Logger,
  searchPath?: string,
): Promise<ReadRouter> {
  let systemId: Promise<string> | undefined;
  // The cluster the standbys must belong to; asked once, again after a failure.
  const expectSystemId = () => {
    systemId ??= primary
      .query<{ id: string }>('select system_identifier::text as id from pg_control_system()')
      .then(({ rows }) => rows[0]!.id);
    systemId.catch(() => {
      systemId = undefined;
    });
    return systemId;
  };
  const replicas = await Promise.all(
    config.databaseReadUrls.map(async (url) => {
      const u = new URL(url);
      if (searchPath) u.searchParams.set('options', `-c search_path=${searchPath},public`);
      const db = await openDatabase({
        url: u.toString(),
        applicationName: 'sluice-chain-api',
        max: config.database.poolSize,
        statementTimeoutMs: config.database.statementTimeoutMs,
        // A standby that vanished must not hold a read for long before it goes to the primary.
        connectTimeoutMs: 2_000,
      });
      return new ReadServer(serverName(url), db, expectSystemId);
    }),
  );
  const router = new ReadRouter({
    primary,
    primaryName: serverName(config.databaseUrl ?? ''),
    replicas,
    maxWaitMs: config.readMaxWaitMs,
    onStateChange(server, state, error) {
      const level = state === 'ok' ? 'info' : 'warn';
      log[level]({ server, state, reason: error }, `read server ${state}`);
    },
  });
  await router.start();
  return router;
}
