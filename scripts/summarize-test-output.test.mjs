import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSummary, summarizeRun } from './summarize-test-output.mjs';

const vitestFailed = [
  '\x1b[32m✓\x1b[39m test/a.test.ts (3 tests) 20ms',
  ' \x1b[31m❯\x1b[39m test/b.test.ts (2 tests | 1 failed) 30ms',
  '⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯',
  '',
  ' \x1b[41m FAIL \x1b[49m test/b.test.ts > route > answers 200',
  'AssertionError: expected 500 to be 200 // Object.is equality',
  '',
  ' Test Files  1 failed | 1 passed (2)',
  '      Tests  1 failed | 4 passed (5)',
  '   Duration  1.2s',
].join('\n');

test('names each failed vitest test with the first line of its error, and keeps the totals', () => {
  const summary = summarizeRun(vitestFailed);
  assert.deepEqual(summary.failures, [
    'test/b.test.ts > route > answers 200\n    AssertionError: expected 500 to be 200 // Object.is equality',
  ]);
  assert.deepEqual(summary.totals, [
    'Test Files  1 failed | 1 passed (2)',
    'Tests  1 failed | 4 passed (5)',
    'Duration  1.2s',
  ]);
});

test('names failed node:test tests', () => {
  const summary = summarizeRun('ok 1 - starts\nnot ok 2 - stops on SIGINT\n# pass 1\n# fail 1\n');
  assert.deepEqual(summary.failures, ['node:test stops on SIGINT']);
  assert.deepEqual(summary.totals, ['# pass 1', '# fail 1']);
});

test('keeps at most the limit and counts the rest', () => {
  const output = Array.from({ length: 5 }, (_, i) => ` FAIL  t.test.ts > case ${i}`).join('\n');
  const summary = summarizeRun(output, 2);
  assert.equal(summary.failures.length, 2);
  assert.equal(summary.more, 3);
});

test('the closing block lists every failed step after the verdicts, last', () => {
  const steps = [
    { name: '@sluice/a', code: 0, ms: 1500, summary: summarizeRun(' Test Files  2 passed (2)') },
    { name: '@sluice/b', code: 1, ms: 90_000, summary: summarizeRun(vitestFailed) },
  ];
  const text = formatSummary(steps);
  assert.match(text, /@sluice\/a: passed in 2 s/);
  assert.match(text, /@sluice\/b: FAILED \(exit 1\) in 90 s/);
  assert.match(text, /---- failures in @sluice\/b ----\n {2}test\/b.test.ts > route > answers 200/);
  assert.ok(text.endsWith('1 step(s) failed'));
  assert.ok(formatSummary(steps.slice(0, 1)).endsWith('all passed'));
});

test('names failed node:test tests from its spec reporter too', () => {
  const summary = summarizeRun('✔ starts (12.5ms)\n✖ stops on SIGINT (30.1ms)\n✖ failing tests:\n');
  assert.deepEqual(summary.failures, ['node:test stops on SIGINT']);
});
