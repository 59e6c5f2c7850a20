import { html, type SafeHtml } from './safe-html.js';

/** Content-Security-Policy of every page: only same-origin scripts and styles, no inline code. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The document shell shared by all pages. */
export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sluice users</title>
<link rel="stylesheet" href="/assets/app.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script src="/assets/app.js" defer></script>
</head>
<body>
<header>
<nav aria-label="Main">
<a href="/users">Users</a>
<a href="/add">Add a user</a>
<a href="/docs">API docs</a>
</nav>
</header>
<main id="main">
${body}
</main>
</body>
</html>
`.value;
}
