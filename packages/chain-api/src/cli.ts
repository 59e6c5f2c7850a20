#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createLogger } from './cli/logger.js';
import { ConfigError, loadProcessConfig } from './config/index.js';

const usage = `sluice-chain: self-hosted EVM wallet data API (Sim-compatible /v1/evm/...)

Usage:
  sluice-chain serve [--devnet] [--no-index]   API + indexers (+ pricing, NFT worker)
  sluice-chain index [--devnet]                indexers and workers only, no HTTP
  sluice-chain devnet                          local anvil chain with the demo scenario
  sluice-chain keys create [--name n] [--rate-limit n] [--cu-quota n] [--cu-period day|month]
                   | update <id> [--cu-quota n|none] [--cu-period day|month]
                   | list [--all] | usage [--all] [--json] | revoke <id>
  sluice-chain reset <chainId>                 delete a chain's indexed data (re-indexed at next start)
  sluice-chain wallets track [--chain id] [--file f] <address...> | status
                                               pre-track wallets on wallets-mode chains

  --devnet    also start the local devnet and serve it (what \`npm start\` does)
  --no-index  API only; another process indexes into the same DATABASE_URL

Environment: PORT, HOST, DATABASE_URL (unset: PGlite in DATA_DIR, default ./data),
DATABASE_READ_URL (hot standbys for API reads, comma-separated), REDIS_URL,
RPC_URL_<chainId>, CHAINS_FILE, API_KEYS, RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS, CURSOR_SECRET,
LOG_LEVEL, TRUST_PROXY. See the package README.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(usage);
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v') {
    console.log(version());
    return 0;
  }
  const config = loadProcessConfig();
  // Commands load their modules on demand: `keys` must not pay for viem, solc or the workers.
  if (command === 'keys') {
    const { keysCommand } = await import('./cli/keys-command.js');
    return keysCommand(args, config, (line) => console.log(line));
  }
  if (command === 'wallets') {
    const { walletsCommand } = await import('./cli/wallets-command.js');
    return walletsCommand(args, config, (line) => console.log(line));
  }
  if (command === 'reset') {
    const { resetCommand } = await import('./cli/reset-command.js');
    return resetCommand(args, config, (line) => console.log(line));
  }

  const log = createLogger(config.logLevel);
  let running: { stop(): Promise<void> };
  if (command === 'serve' || command === 'index') {
    const { parseServeFlags, serveCommand } = await import('./cli/serve-command.js');
    running = await serveCommand(parseServeFlags(args, command === 'serve'), config, log);
  } else if (command === 'devnet') {
    const { devnetCommand } = await import('./cli/devnet-command.js');
    running = await devnetCommand(config, log);
  } else {
    console.error(`unknown command "${command}"\n\n${usage}`);
    return 2;
  }

  // Graceful shutdown: stop accepting, finish in-flight requests, stop workers, close the store.
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      stopping = true;
      log.info({ signal }, 'shutting down');
      const force = setTimeout(() => {
        log.error('shutdown took longer than 15 s: exiting');
        process.exit(1);
      }, 15_000);
      force.unref();
      running.stop().finally(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    // Exit explicitly: a worker's straggling timer must not keep a stopped server alive.
    process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(`sluice-chain: ${error.message}`);
    } else {
      console.error(error);
    }
    process.exitCode = 1;
  },
);
