import { createHash } from 'node:crypto';
import { escapeHtml } from '@sluice/html-kit';
import type { FastifyReply } from 'fastify';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}' +
  'h1{font-size:1.6rem;margin-bottom:.25rem}code,pre{font:14px ui-monospace,monospace;background:#f3f4f6;border-radius:4px}' +
  'pre{padding:.75rem;overflow-x:auto}code{padding:0 .2rem}a{color:#0b57d0}.muted{color:#57606a}';
// The one inline style is allowed by its hash; nothing else runs or loads.
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
export const HTML_PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * Sends a small self-contained HTML page (`body` is trusted markup; escape any input with
 * {@link escapeHtml}) with a strict CSP.
 *
 * @example
 * import { escapeHtml } from '@sluice/html-kit';
 * return sendHtmlPage(reply, 404, 'Not found', `<p>${escapeHtml(path)}</p>`);
 */
export function sendHtmlPage(
  reply: FastifyReply,
  status: number,
  title: string,
  body: string,
): FastifyReply {
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Sluice chain API</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', HTML_PAGE_CSP)
    .header('cache-control', 'no-store')
    .send(page);
}
