import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Runs dependency-cruiser exactly as `npm run lint` does (same CLI, same config), once on a small
// tree built to break the rules and once on the real src/.

const run = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const config = join(packageDir, '.dependency-cruiser.cjs');
const baseline = join(packageDir, '.dependency-cruiser-known-violations.json');
const fixtureDir = join(packageDir, 'test/fixtures/layers');

// The package's exports hide package.json: find it where npm put it (here or hoisted to the root).
const cruiserPackage = [packageDir, resolve(packageDir, '../..')]
  .map((dir) => join(dir, 'node_modules/dependency-cruiser/package.json'))
  .find((path) => existsSync(path));
if (!cruiserPackage) throw new Error('dependency-cruiser is not installed (npm ci)');
const { bin } = JSON.parse(readFileSync(cruiserPackage, 'utf8')) as { bin: Record<string, string> };
const depcruise = join(dirname(cruiserPackage), bin.depcruise as string);

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}

async function cruise(cwd: string, extra: string[] = []): Promise<Violation[]> {
  const args = [depcruise, 'src', '--config', config, '--output-type', 'json', ...extra];
  // depcruise exits non-zero when it finds violations; the JSON report is on stdout either way.
  const { stdout } = await run(process.execPath, args, { cwd, maxBuffer: 64 << 20 }).catch(
    (error: { stdout?: string }) => {
      if (!error.stdout) throw error;
      return { stdout: error.stdout };
    },
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('layer rules (dependency-cruiser, as run by npm run lint)', () => {
  it('reports an upward import, a file-level cycle and test-only code in src, and nothing else', async () => {
    const violations = await cruise(fixtureDir);
    const found = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    expect(found).toEqual([
      'layer-1-no-upward-import: src/rpc/client.ts -> src/api/answer.ts',
      'no-circular: src/derive/first.ts -> src/derive/second.ts',
      'no-test-only-src: src/rpc/fault-helper.ts -> src/rpc/fault-helper.ts',
    ]);
  }, 120_000);

  it('finds no violation in the real src/ beyond the known baseline', async () => {
    const violations = await cruise(packageDir, ['--ignore-known', baseline]);
    // Known (baseline) violations come back with severity "ignore".
    const fresh = violations.filter((v) => v.rule.severity !== 'ignore');
    expect(fresh.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  }, 120_000);
});
