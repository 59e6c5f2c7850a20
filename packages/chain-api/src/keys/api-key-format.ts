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

/**
 * A hint that tells keys apart without revealing them: for a generated key its public prefix
 * and 4 of its 32 random characters; for any other key at most an eighth of it, and none at all
 * below 32 characters (a short development key like `abc` must not be stored in plain text).
 *
 * @example
 * keyHint('sluice_3q2-7wHcAbCdEfGhIjKlMnOpQrStUvWx'); // 'sluice_3q2-…'
 * keyHint('abc'); // '…(3 characters)'
 */
export function keyHint(key: string): string {
  const generated = key.startsWith(apiKeyPrefix) && key.length >= apiKeyPrefix.length + 32;
  const shown = generated ? apiKeyPrefix.length + 4 : Math.floor(key.length / 8);
  if (!generated && key.length < 32) return `…(${key.length} characters)`;
  return `${key.slice(0, shown)}…`;
}
