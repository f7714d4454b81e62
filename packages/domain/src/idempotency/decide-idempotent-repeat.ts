import { sha256, toHex } from '../signing/hmac-sha256';

/** docs/idempotency.md: a key and its first answer are kept 24 hours of the service clock (decisions §10). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * What makes two requests "the same request" for one key: method, path with query, and the body as
 * the service read it (JSON re-serialised, so whitespace does not count; key order does).
 */
export function idempotencyFingerprint(request: { method: string; url: string; body: unknown }): string {
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  return toHex(sha256(`${request.method.toUpperCase()} ${request.url}\n${body}`));
}

/** A key as stored: the first request's fingerprint, its state, and its two deadlines. */
export interface StoredIdempotencyKey {
  fingerprint: string;
  state: 'running' | 'done';
  /** Service clock: after this the key is forgotten. */
  expiresAt: Date;
  /** Real time: while running, the serving replica's claim; past it that replica is taken as dead. */
  lockedUntil: Date | null;
}

/**
 * The fate of a request that arrives with a key already stored:
 * - `expired`: the key's 24 hours are over; it is a new key.
 * - `mismatch`: another request (method, path or body) under this key: 422, never run.
 * - `in-progress`: the first request is still being served: 409, to be retried.
 * - `abandoned`: the first request's replica stopped renewing its claim (it died): this one runs.
 * - `replay`: answer the stored response.
 */
export type IdempotentRepeat = 'expired' | 'mismatch' | 'in-progress' | 'abandoned' | 'replay';

export function decideIdempotentRepeat(
  stored: StoredIdempotencyKey,
  incoming: { fingerprint: string; now: Date; realNow: Date },
): IdempotentRepeat {
  if (stored.expiresAt.getTime() <= incoming.now.getTime()) return 'expired';
  if (stored.fingerprint !== incoming.fingerprint) return 'mismatch';
  if (stored.state === 'done') return 'replay';
  if (stored.lockedUntil !== null && stored.lockedUntil.getTime() <= incoming.realNow.getTime()) return 'abandoned';
  return 'in-progress';
}
