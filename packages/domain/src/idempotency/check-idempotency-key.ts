/** docs/idempotency.md: the key names one POST for 24 hours; longer keys are refused, not cut. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

// Space to tilde: the printable ASCII characters. Linear: one class, one bounded repetition.
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

export type IdempotencyKeyCheck = { ok: true; key: string | undefined } | { ok: false; message: string };

/**
 * The `Idempotency-Key` header as received, one entry per occurrence (none: the request is not
 * idempotent). A key is 1-255 printable ASCII characters, sent once: two occurrences would be
 * joined by the HTTP layer into a key neither side meant.
 */
export function checkIdempotencyKey(occurrences: readonly string[]): IdempotencyKeyCheck {
  if (occurrences.length === 0) return { ok: true, key: undefined };
  if (occurrences.length > 1) return { ok: false, message: 'Idempotency-Key must be sent once' };
  const key = occurrences[0]!;
  if (!PRINTABLE_ASCII.test(key)) {
    return { ok: false, message: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters` };
  }
  return { ok: true, key };
}
