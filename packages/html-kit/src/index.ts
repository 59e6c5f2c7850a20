export { escapeHtml } from './escape-html.js';
export { prefersHtml } from './prefers-html.js';
