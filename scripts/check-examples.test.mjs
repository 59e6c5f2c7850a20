import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractExamples } from './check-examples.mjs';

test('extracts each @example block of a JSDoc comment, fenced or not, up to the next tag', () => {
  const source = [
    '/**',
    ' * Does a thing.',
    ' *',
    ' * @example',
    ' * const a = f(1);',
    ' * a.b; // 2',
    ' * @param x ignored',
    ' */',
    'export function f() {}',
    '/**',
    ' * @example',
    ' * ```ts',
    ' * g();',
    ' * ```',
    ' */',
    '// @example in a line comment is not documentation',
  ].join('\n');
  assert.deepEqual(extractExamples(source), ['const a = f(1);\na.b; // 2', 'g();']);
});

test('a comment without examples gives none', () => {
  assert.deepEqual(extractExamples('/** Plain. @param a the a */'), []);
});
