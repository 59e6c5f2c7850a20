import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useCallback, useState } from 'preact/hooks';
import { currentKey, forgetKey, saveKey } from './api-key.js';

/** Lets a page report that the server refused the key, which brings the prompt back. */
export const KeyRefused = createContext<(reason: string) => void>(() => {});

/** Asks for the API key once (kept in sessionStorage), then shows the page. */
export function KeyGate({ children }: { children: ComponentChildren }) {
  const [key, setKey] = useState(currentKey());
  const [error, setError] = useState<string | null>(null);
  const refused = useCallback((reason: string) => {
    forgetKey();
    setError(reason);
    setKey(null);
  }, []);
  if (!key) {
    return (
      <form
        class="card key-prompt"
        onSubmit={(e) => {
          e.preventDefault();
          const input = (e.currentTarget as HTMLFormElement).elements.namedItem('api-key');
          const value = (input as HTMLInputElement).value.trim();
          if (value === '') return;
          saveKey(value);
          setError(null);
          setKey(value);
        }}
      >
        <h1>API key</h1>
        <p>
          These pages read this server's keyed API. Enter a key (created with{' '}
          <code>sluice-chain keys create</code>); it stays in this tab only.
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <label for="api-key">API key</label>
        <div class="row">
          <input id="api-key" name="api-key" type="password" autocomplete="off" required />
          <button type="submit">Continue</button>
        </div>
      </form>
    );
  }
  return <KeyRefused.Provider value={refused}>{children}</KeyRefused.Provider>;
}
