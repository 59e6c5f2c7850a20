#!/usr/bin/env node
// `npm run test:all` (the tail of `npm test`; `-- <package folder>...` for some packages only): runs every workspace package's tests, then the
// scripts' own tests, each to the end even when an earlier one failed, with their output as it
// comes. Then it prints a summary (each step's verdict and time, every failed test with the first
// line of its error), so the last lines of a long CI log say what broke. Exits 1 if any failed.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatSummary, summarizeRun } from './summarize-test-output.mjs';

const root = new URL('..', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Output kept per step for the summary; the rest only streams through. */
const keptBytes = 8 * 1024 * 1024;

/** The step running now: a signal to this runner is passed on to it (else it would run on). */
let current;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    current?.kill(signal);
    process.exitCode = 1;
    stopping = true;
  });
}

function run(name, command, args, cwd) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    current = child;
    let kept = '';
    const keep = (chunk) => {
      kept += chunk.toString('utf8');
      if (kept.length > keptBytes) kept = kept.slice(kept.length - keptBytes);
    };
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      keep(chunk);
    });
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      keep(chunk);
    });
    child.on('close', (code, signal) => {
      resolve({ name, code, signal, ms: Date.now() - started, summary: summarizeRun(kept) });
    });
  });
}

// Folder names under packages/ limit the run to those packages (and skip the scripts' tests).
const only = process.argv.slice(2);
const steps = [];
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  if (stopping || (only.length > 0 && !only.includes(dir))) continue;
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  if (!pkg.scripts?.test) continue;
  steps.push(await run(pkg.name, npm, ['run', 'test'], join(root, 'packages', dir)));
}
if (only.length === 0 && !stopping) {
  steps.push(await run('scripts', npm, ['run', 'test:scripts'], root));
}

console.log(formatSummary(steps));
process.exitCode = !stopping && steps.every((step) => step.code === 0) ? 0 : 1;
