import { randomBytes } from 'node:crypto';

// MongoDB ObjectId layout, so clients of the original service keep working: 4-byte seconds
// timestamp, 5 random bytes chosen once per process, 3-byte counter starting at a random value.
const processUnique = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * Generates a 24-hex-character ObjectId-like `_id`, unique across processes with overwhelming
 * probability and roughly ordered by creation time.
 *
 * @example
 * newObjectId(); // '6740c2f1a3b4c5d6e7000001'
 */
export function newObjectId(now: number = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now / 1000) % 0x100000000;
  return (
    seconds.toString(16).padStart(8, '0') + processUnique + counter.toString(16).padStart(6, '0')
  );
}

export const OBJECT_ID = /^[0-9a-f]{24}$/;
