#!/usr/bin/env node
// `sluice-webhooks relay`: runs the self-hosted relay until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { createRelayServer } from '../relay-server/create-relay-server.js';

const usage = `Usage: sluice-webhooks relay [options]

Options:
  --port <n>                  port to listen on (default 3000, or $PORT; 0 = any free port)
  --host <addr>               address to bind (default 127.0.0.1)
  --public-url <url>          base of the channel URLs handed out (default: from Host)
  --max-body-bytes <n>        largest delivery accepted (default 26214400)
  --max-deliveries <n>        deliveries kept per channel for replay (default 100)
  --max-channel-bytes <n>     bytes kept per channel (default 33554432)
  --max-total-bytes <n>       bytes kept over all channels (default 268435456)
  --max-channels <n>          open channels (default 1000)
  --max-channels-per-client <n>  open channels per client address (default 20)
  --channel-idle-ms <n>       remove channels unused this long (default 7200000, 2 hours)
  --max-buffered-bytes <n>    bodies being read + unsent stream bytes (default 134217728)
  -h, --help                  show this help

Environment:
  SLUICE_RELAY_CREATE_TOKEN   when set, creating a channel needs "Authorization: Bearer <token>"`;

function integer(name: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  if (
    !/^\d{1,15}$/.test(value) ||
    Number(value) < min ||
    (name === 'port' && Number(value) > 65535)
  ) {
    throw new Error(
      `--${name} must be an integer of at least ${min}${name === 'port' ? ' and at most 65535' : ''} (got "${value}")`,
    );
  }
  return Number(value);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'public-url': { type: 'string' },
      'max-body-bytes': { type: 'string' },
      'max-deliveries': { type: 'string' },
      'max-channel-bytes': { type: 'string' },
      'max-total-bytes': { type: 'string' },
      'max-channels': { type: 'string' },
      'max-channels-per-client': { type: 'string' },
      'channel-idle-ms': { type: 'string' },
      'max-buffered-bytes': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals[0] !== 'relay' || positionals.length > 1) {
    (values.help ? console.log : console.error)(usage);
    return values.help ? 0 : 2;
  }
  const port = integer('port', values.port ?? process.env.PORT, 0) ?? 3000;
  const relay = createRelayServer({
    publicUrl: values['public-url'],
    maxBodyBytes: integer('max-body-bytes', values['max-body-bytes']),
    maxDeliveriesPerChannel: integer('max-deliveries', values['max-deliveries']),
    maxChannelBytes: integer('max-channel-bytes', values['max-channel-bytes']),
    maxTotalBytes: integer('max-total-bytes', values['max-total-bytes']),
    maxChannels: integer('max-channels', values['max-channels']),
    maxChannelsPerClient: integer('max-channels-per-client', values['max-channels-per-client']),
    channelIdleMs: integer('channel-idle-ms', values['channel-idle-ms']),
    maxBufferedBytes: integer('max-buffered-bytes', values['max-buffered-bytes']),
    // From the environment, not a flag: command lines are visible to every local user.
    createToken: process.env.SLUICE_RELAY_CREATE_TOKEN || undefined,
    log: console,
  });
  const base = await relay.listen(port, values.host ?? '127.0.0.1');
  console.log(`relay listening on ${base} (create a channel: POST ${base}/channels)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await relay.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
