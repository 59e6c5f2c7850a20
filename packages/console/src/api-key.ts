/** Where the pages keep the API key for the tab's life; scripts and tests may set it first. */
export const KEY_STORAGE = 'sluice-api-key';

/**
 * The API key to send: the one in `sessionStorage`, else the devnet's demo key the server put in
 * the page (then remembered), else none (the page asks for one).
 */
export function currentKey(): string | null {
  const stored = sessionStorage.getItem(KEY_STORAGE);
  if (stored) return stored;
  const demo = document.querySelector<HTMLMetaElement>('meta[name="sluice-demo-key"]')?.content;
  if (demo) {
    sessionStorage.setItem(KEY_STORAGE, demo);
    return demo;
  }
  return null;
}

export function saveKey(key: string): void {
  sessionStorage.setItem(KEY_STORAGE, key.trim());
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_STORAGE);
}
