import { describe, expect, it } from 'vitest';
import { html } from './safe-html.js';

describe('html template', () => {
  it('escapes interpolations but not nested templates', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${[html`<br>`]}</p>`.value).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b><br></p>',
    );
  });
});
