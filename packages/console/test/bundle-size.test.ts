import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/** What a browser downloads: every built script, gzipped as the server sends it. */
const assets = new URL('../dist/assets/', import.meta.url).pathname;
const LIMIT = 150 * 1024;

describe('built console', () => {
  it(`ships under ${LIMIT / 1024} KB of gzipped JavaScript`, () => {
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    let total = 0;
    for (const name of scripts) {
      total += gzipSync(readFileSync(join(assets, name)), { level: 9 }).length;
    }
    process.stdout.write(
      `console JS: ${scripts.length} file(s), ${(total / 1024).toFixed(1)} KB gzipped\n`,
    );
    expect(total).toBeLessThan(LIMIT);
  });
});
