import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './escape-html.js';

describe('html escaping', () => {
  it('escapes the five significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('escapes interpolations but not nested templates', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${[html`<br>`]}</p>`.value).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b><br></p>',
    );
  });
});
