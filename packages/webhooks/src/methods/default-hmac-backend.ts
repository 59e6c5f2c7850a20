import type { HmacBackend } from './hmac-backend.js';
import { createNodeHmacBackend } from './node-hmac-backend.js';
import { createWebHmacBackend } from './web-hmac-backend.js';

let backend: HmacBackend | undefined;

/**
 * The backend for this runtime, chosen once: node:crypto where available (synchronous and
 * fastest), `crypto.subtle` elsewhere.
 *
 * @example
 * ```ts
 * getDefaultHmacBackend().name; // 'node' on Node.js
 * ```
 */
export function getDefaultHmacBackend(): HmacBackend {
  backend ??= createNodeHmacBackend() ?? createWebHmacBackend();
  return backend;
}
