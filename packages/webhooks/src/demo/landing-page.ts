// What the demo receiver answers to people and tools that are not the provider: a landing page
// at `/` (and on a GET of the delivery path) and 404s, as HTML for browsers and JSON otherwise.

export interface LandingInfo {
  /** Where deliveries go (POST). */
  deliveryUrl: string;
  /** The health check URL. */
  healthUrl: string;
  /** A signed curl request that delivers a `ping`. */
  curl: string;
}

/** A response the demo server writes as is. */
export interface PageResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Whether the client prefers HTML: a browser navigation sends `Accept: text/html,…`; curl and
 * API clients send `*\/*` or `application/json`.
 *
 * @example
 * ```ts
 * wantsHtml('text/html,application/xhtml+xml,*\/*;q=0.8'); // true
 * ```
 */
export function wantsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}' +
  'pre{background:#f3f4f6;padding:1rem;overflow-x:auto;border-radius:6px}code{font-size:.9em}' +
  'a{color:#0b5fff}';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

const html = (status: number, body: string): PageResponse => ({
  status,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'x-content-type-options': 'nosniff',
    // No scripts at all; the one inline style block is the only thing allowed.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  },
  body: page(
    status === 200 ? '@sluice/webhooks demo receiver' : 'Not found · @sluice/webhooks demo',
    body,
  ),
});

const json = (status: number, value: unknown): PageResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: `${JSON.stringify(value, null, 2)}\n`,
});

/**
 * The landing page: what this service is, where deliveries go, a signed example, links.
 *
 * @example
 * ```ts
 * const { status, headers, body } = landingPage(info, req.headers.accept);
 * ```
 */
export function landingPage(info: LandingInfo, accept: string | undefined): PageResponse {
  if (!wantsHtml(accept)) {
    return json(200, {
      service: '@sluice/webhooks demo receiver',
      description:
        'Receives code-hosting webhook deliveries, verifies their X-Hub-Signature-256 signature and dispatches them to handlers.',
      deliveries: { method: 'POST', url: info.deliveryUrl },
      health: info.healthUrl,
      example: info.curl,
      docs: 'packages/webhooks/README.md',
    });
  }
  return html(
    200,
    `<h1>@sluice/webhooks demo receiver</h1>
<p>This server receives code-hosting webhook deliveries, checks each one's
<code>X-Hub-Signature-256</code> signature against this run's secret, and hands valid ones to
its handlers (here they print what arrived in the terminal).</p>
<h2>Send a delivery</h2>
<p>Deliveries are <code>POST</code>ed to <a href="${escapeHtml(info.deliveryUrl)}">${escapeHtml(info.deliveryUrl)}</a>
with the headers <code>X-Provider-Event</code>, <code>X-Provider-Delivery</code> and
<code>X-Hub-Signature-256</code>. This signed <code>ping</code> works as is:</p>
<pre><code>${escapeHtml(info.curl)}</code></pre>
<p>Change one byte of the body and the receiver answers 400 (signature mismatch).</p>
<h2>Links</h2>
<ul>
<li><a href="${escapeHtml(info.healthUrl)}">Health check</a></li>
<li>Documentation: <code>packages/webhooks/README.md</code> in the repository</li>
</ul>`,
  );
}

/**
 * A 404: an HTML page with a way back for browsers, `{ error }` JSON for everything else.
 *
 * @example
 * ```ts
 * notFoundPage('GET', '/nope', info, req.headers.accept);
 * ```
 */
export function notFoundPage(
  method: string,
  path: string,
  info: LandingInfo,
  accept: string | undefined,
): PageResponse {
  if (!wantsHtml(accept)) {
    return json(404, {
      error: `Not found: ${method} ${path}; deliveries go to POST ${info.deliveryUrl}`,
    });
  }
  return html(
    404,
    `<h1>Not found</h1>
<p>Nothing here answers <code>${escapeHtml(`${method} ${path}`)}</code>.</p>
<p>Deliveries go to <code>POST ${escapeHtml(info.deliveryUrl)}</code>.
See the <a href="/">demo receiver's start page</a>.</p>`,
  );
}
