// Reads what a test run printed (vitest or node --test) and keeps what a reader of the last lines
// of a long CI log needs: which files and tests failed, with the first line of each error, and the
// totals. Pure functions, so the runner and its test share them.

import { stripVTControlCharacters } from 'node:util';

/**
 * Picks from one run's output the failed tests (vitest's `FAIL file > test` lines, each with the
 * first error line after it, and node:test's `not ok` lines), the files vitest marked failed, and
 * its totals. Returns at most `limit` failure entries; `more` counts the rest.
 */
export function summarizeRun(output, limit = 40) {
  const lines = stripVTControlCharacters(output).split(/\r?\n/);
  const failures = [];
  const totals = [];
  const seen = new Set();
  let more = 0;
  const add = (entry) => {
    if (seen.has(entry)) return;
    seen.add(entry);
    if (failures.length < limit) failures.push(entry);
    else more++;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const vitestFail = /^FAIL\s+(.+)$/.exec(line);
    if (vitestFail) {
      const error = lines
        .slice(i + 1, i + 12)
        .map((l) => l.trim())
        .find((l) => /(Error|error:|expected|Timed out|timed out)/.test(l));
      add(error ? `${vitestFail[1]}\n    ${error.slice(0, 300)}` : vitestFail[1]);
      continue;
    }
    // node:test: TAP when piped, its spec reporter on a terminal.
    const nodeFail = /^not ok \d+ - (.+)$/.exec(line) ?? /^✖ (.+?)(?: \([\d.]+m?s\))?$/.exec(line);
    if (nodeFail && !nodeFail[1].startsWith('failing tests')) add(`node:test ${nodeFail[1]}`);
    if (/^(Test Files|Tests|Duration)\s/.test(line) || /^# (pass|fail|duration_ms)\s/.test(line)) {
      totals.push(line);
    }
  }
  return { failures, more, totals };
}

/** The closing block: one line per step with its exit code and time, then every failure. */
export function formatSummary(steps) {
  const out = ['', '==== test summary ===='];
  for (const step of steps) {
    const verdict = step.code === 0 ? 'passed' : `FAILED (exit ${step.code ?? step.signal})`;
    out.push(`${step.name}: ${verdict} in ${Math.round(step.ms / 1000)} s`);
    for (const total of step.summary.totals) out.push(`  ${total}`);
  }
  const failed = steps.filter((s) => s.code !== 0);
  for (const step of failed) {
    out.push('', `---- failures in ${step.name} ----`);
    if (step.summary.failures.length === 0) out.push('  (no test named; see its output above)');
    for (const failure of step.summary.failures) out.push(`  ${failure}`);
    if (step.summary.more > 0) out.push(`  ... and ${step.summary.more} more`);
  }
  out.push(failed.length === 0 ? 'all passed' : `${failed.length} step(s) failed`);
  return out.join('\n');
}
