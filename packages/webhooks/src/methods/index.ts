// `@sluice/webhooks/methods`: signing and verification without the event registry.

export type { HmacBackend } from './hmac-backend.js';
export { createNodeHmacBackend } from './node-hmac-backend.js';
export { sign } from './sign.js';
export { signWithBackend } from './sign-with-backend.js';
export { verify } from './verify.js';
export { verifyWithBackend } from './verify-with-backend.js';
export { verifyWithFallback } from './verify-with-fallback.js';
export { createWebHmacBackend } from './web-hmac-backend.js';
