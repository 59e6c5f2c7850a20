#!/usr/bin/env node
// `npm run build`: builds every workspace package with a `build` script, dependencies first
// (@sluice/db before the packages that import its types), and skips a package whose dist is
// newer than its sources, its tsconfigs and the builds it depends on. tsc itself is incremental
// (dist/.tsbuildinfo), so a package that does rebuild only re-checks what changed.
// `--force` rebuilds everything. A bundled package (Vite: packages/console) has no tsc build info;
// this script keeps an empty stamp file of that name in its dist instead.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const force = process.argv.includes('--force');

function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs; // a deleted file shows as a newer directory
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const packages = new Map();
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  const cwd = join(root, 'packages', dir);
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
  packages.set(pkg.name, { name: pkg.name, dir, cwd, build: pkg.scripts?.build, deps });
}

// Dependencies first.
const order = [];
const seen = new Set();
const visit = (name) => {
  if (seen.has(name) || !packages.has(name)) return;
  seen.add(name);
  for (const dep of packages.get(name).deps) visit(dep);
  order.push(packages.get(name));
};
for (const name of packages.keys()) visit(name);

const builtAt = new Map();
let failed = false;
for (const pkg of order) {
  if (!pkg.build) continue;
  const stamp = join(pkg.cwd, 'dist', '.tsbuildinfo');
  const inputs = Math.max(
    newest(join(pkg.cwd, 'src')),
    newest(join(pkg.cwd, 'package.json')),
    newest(join(pkg.cwd, 'tsconfig.build.json')),
    newest(join(pkg.cwd, 'index.html')),
    newest(join(pkg.cwd, 'vite.config.ts')),
    newest(join(root, 'tsconfig.base.json')),
    ...pkg.deps.map((dep) => builtAt.get(dep) ?? 0),
  );
  const built = newest(stamp);
  if (!force && built > 0 && built >= inputs) {
    builtAt.set(pkg.name, built);
    continue;
  }
  const began = Date.now();
  const run = spawnSync('npm', ['run', '--silent', 'build', '-w', pkg.name], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    process.stderr.write(`[build] ${pkg.name} failed\n`);
    failed = true;
    break;
  }
  // tsc leaves its build info untouched when nothing changed: mark the build as current.
  const now = new Date();
  try {
    utimesSync(stamp, now, now);
  } catch {
    writeFileSync(stamp, '');
  }
  builtAt.set(pkg.name, newest(stamp));
  process.stdout.write(`[build] ${pkg.name} in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
}
process.exit(failed ? 1 : 0);
