import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { escapeHtml } from '@sluice/html-kit';

/** The built console (packages/console): its page and its hashed assets, read once. */
export interface ConsoleAssets {
  /** index.html, with the devnet's demo key put in when given. */
  page(demoKey?: string): string;
  /** A built asset by file name, or undefined. */
  asset(name: string): { body: Buffer; contentType: string } | undefined;
}

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * Finds `@sluice/console`'s dist (a dependency of this package; `npm run build` and `npm ci`
 * build it). Absent (not built): undefined, and `/` keeps serving the plain HTML page.
 *
 * @example
 * const assets = loadConsoleAssets();
 * assets?.page('sk_demo_...');
 */
export function loadConsoleAssets(dist = defaultDist()): ConsoleAssets | undefined {
  if (!dist || !existsSync(join(dist, 'index.html'))) return undefined;
  const index = readFileSync(join(dist, 'index.html'), 'utf8');
  const files = new Map<string, { body: Buffer; contentType: string }>();
  const assetsDir = join(dist, 'assets');
  for (const name of existsSync(assetsDir) ? readdirSync(assetsDir) : []) {
    const type = types[name.slice(name.lastIndexOf('.'))];
    if (type) files.set(name, { body: readFileSync(join(assetsDir, name)), contentType: type });
  }
  return {
    page(demoKey) {
      if (!demoKey) return index;
      const meta = `<meta name="sluice-demo-key" content="${escapeHtml(demoKey)}" />`;
      return index.replace('</head>', `  ${meta}\n  </head>`);
    },
    asset: (name) => files.get(name),
  };
}

function defaultDist(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@sluice/console/package.json');
    return join(dirname(manifest), 'dist');
  } catch {
    return undefined;
  }
}
