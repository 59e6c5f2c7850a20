import { createHash, randomBytes } from 'node:crypto';

/** Prefix of keys made by `sluice-chain keys create`, so leaked keys are easy to grep for. */
export const apiKeyPrefix = 'sluice_';

/**
 * A new API key: 192 random bits, URL-safe. Shown once; only its hash is stored.
 *
 * @example
 * generateApiKey(); // 'sluice_3q2-7wHc...'
 */
export function generateApiKey(): string {
  return `${apiKeyPrefix}${randomBytes(24).toString('base64url')}`;
}

/**
 * SHA-256 of a key, hex. Keys are high-entropy random strings, so a fast hash is enough (no
 * password-style stretching needed) and lets every request be checked in microseconds.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters of a key, safe to display so users can tell their keys apart. */
export function keyHint(key: string): string {
  return `${key.slice(0, apiKeyPrefix.length + 4)}…`;
}
