import { currentKey } from './api-key.js';

/** The server refused the key (401/403): the page asks for another. */
export class KeyRefusedError extends Error {
  override name = 'KeyRefusedError';
}

/** Any other failed request, with the server's message when it sent one. */
export class ApiRequestError extends Error {
  override name = 'ApiRequestError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function send<T>(path: string, init: RequestInit = {}, keyed = true): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set('accept', 'application/json');
  if (keyed) {
    const key = currentKey();
    if (!key) throw new KeyRefusedError('no API key');
    headers.set('x-sim-api-key', key);
  }
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401 || response.status === 403) {
    throw new KeyRefusedError(`the server refused the key (HTTP ${response.status})`);
  }
  if (!response.ok) {
    const text = await response.text();
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
      message = String(parsed.error ?? parsed.message ?? text);
    } catch {}
    throw new ApiRequestError(response.status, message.slice(0, 300) || `HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}

/** GET a keyed route (`/v1/...`) as JSON. */
export function apiGet<T>(path: string): Promise<T> {
  return send<T>(path);
}

/** POST JSON to a keyed route. */
export function apiPost<T>(path: string, body: unknown): Promise<T> {
  return send<T>(path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

/** GET a public route (`/health`, supported chains). */
export function publicGet<T>(path: string): Promise<T> {
  return send<T>(path, {}, false);
}
