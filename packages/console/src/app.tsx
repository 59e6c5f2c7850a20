import { useEffect, useState } from 'preact/hooks';
import { ConsolePage } from './console/console-page.js';
import { ExplorerPage } from './explorer/explorer-page.js';
import { KeyGate } from './key-gate.js';
import { navigate, onNavigate } from './router.js';

/** The explorer's address from `/explorer/{address}`, '' for the bare `/explorer`. */
function explorerAddress(path: string): string | null {
  const match = /^\/explorer(?:\/([^/]*))?\/?$/.exec(path);
  return match ? decodeURIComponent(match[1] ?? '') : null;
}

export function App() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => onNavigate(() => setPath(location.pathname)), []);
  const address = explorerAddress(path);
  return (
    <>
      <header class="top">
        <a class="brand" href="/" onClick={(e) => navigate(e, '/')}>
          Sluice
        </a>
        <nav aria-label="Main">
          <a
            href="/"
            aria-current={address === null ? 'page' : undefined}
            onClick={(e) => navigate(e, '/')}
          >
            Console
          </a>
          <a
            href="/explorer"
            aria-current={address !== null ? 'page' : undefined}
            onClick={(e) => navigate(e, '/explorer')}
          >
            Explorer
          </a>
          <a href="/docs">API docs</a>
          <a href="/health">Health</a>
          <a href="/start">Getting started</a>
        </nav>
      </header>
      <main>
        <KeyGate>{address === null ? <ConsolePage /> : <ExplorerPage address={address} />}</KeyGate>
      </main>
      <footer class="muted">
        Every figure here comes from this server's public endpoints (
        <a href="/openapi.json">OpenAPI document</a>).
      </footer>
    </>
  );
}
