import { createHash, timingSafeEqual } from 'node:crypto';

/** decisions §5.1: only a token's SHA-256 (lowercase hex) is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Constant-time string comparison for secrets. Both sides are hashed first, so inputs of different
 * lengths compare without throwing and without the time depending on where they differ.
 */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}
