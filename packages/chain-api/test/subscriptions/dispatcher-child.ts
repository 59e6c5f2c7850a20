/**
 * A standalone dispatcher process for the crash test: sends the outbox of DATABASE_URL until
 * killed. Prints "ready" once started.
 */
import { openDatabase } from '@sluice/db';
import pino from 'pino';
import { startDispatcher } from '../../src/subscriptions/dispatcher.js';

const db = await openDatabase({ url: process.env.DATABASE_URL });
const dispatcher = startDispatcher({
  db,
  log: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
  config: {
    allowHosts: ['127.0.0.1'],
    retryScheduleMs: [100, 100, 100, 100, 100],
    pollIntervalMs: 20,
    concurrency: 8,
  },
  timeoutMs: 1_000,
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void dispatcher.stop().then(() => db.close().then(() => process.exit(0)));
});
