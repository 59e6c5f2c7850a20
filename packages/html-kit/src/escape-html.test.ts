import { describe, expect, it } from 'vitest';
import { escapeHtml } from './escape-html.js';

describe('escapeHtml', () => {
  it('escapes the five significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('leaves other text, numbers included, as it is', () => {
    expect(escapeHtml('Ada Lovelace — é 🙂')).toBe('Ada Lovelace — é 🙂');
    expect(escapeHtml(42)).toBe('42');
  });
});
