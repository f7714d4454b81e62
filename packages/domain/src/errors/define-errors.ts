// decisions §4: every error that crosses to HTTP is a DomainError whose code maps to one status here.
export const ERROR_STATUS = {
  // The body is not valid JSON (decisions §3.1).
  MALFORMED_JSON: 400,
  // A body sent without `application/json` or with a charset other than utf-8 (decisions §3.1).
  UNSUPPORTED_CONTENT_TYPE: 400,
  // A query parameter outside its allowed form, e.g. `limit` not 1..1000 (decisions §6.1).
  INVALID_PARAMETER: 400,
  // A request header outside its allowed form, e.g. an `Idempotency-Key` of 256 characters (docs/idempotency.md).
  INVALID_HEADER: 400,
  // A tampered, foreign or malformed `page_info` (decisions §6.2).
  INVALID_CURSOR: 400,
  // One record alone exceeds the 8 MB response cap; the caller must ask for fewer `fields` (decisions §3.4).
  RECORD_TOO_LARGE: 400,
  // An OAuth code that is unknown, used, expired, or of another app or store (decisions §5.2).
  INVALID_GRANT: 400,
  // Token missing, unknown, revoked, or sent to another store's host (decisions §1.3, §4).
  UNAUTHENTICATED: 401,
  // A token call (decisions §5.2) whose appkey, timestamp or sign does not verify.
  INVALID_SIGNATURE: 401,
  // Token past its lifetime; a separate code so the message can say `expired` (decisions §4, §5.3).
  TOKEN_EXPIRED: 401,
  // Store frozen or its plan expired (decisions §5.6).
  PAYMENT_REQUIRED: 402,
  // The token lacks the scope the operation needs; the message names it (decisions §5.5).
  MISSING_SCOPE: 403,
  // The definition's `access` forbids this app the action, though it may see it (decisions §8.7).
  ACCESS_DENIED: 403,
  // A merchant form posted without its one-time token, from another origin, or a second time (CSRF, replay).
  FORM_REFUSED: 403,
  // Unknown route or resource, or one the caller may not even see (decisions §1.1, §4).
  NOT_FOUND: 404,
  // Malformed, unreleased or non-release API version (decisions §2.3).
  VERSION_NOT_SUPPORTED: 404,
  // The first request under an `Idempotency-Key` is still being served; the repeat may be sent again later (docs/idempotency.md).
  IDEMPOTENCY_KEY_IN_USE: 409,
  // A write that kept meeting concurrent changes (a metafield definition edited again and again
  // while its values were written): nothing was written; the same request may be sent again.
  WRITE_CONFLICT: 409,
  // A request body over 8 MB (decisions §3.1).
  PAYLOAD_TOO_LARGE: 413,
  // A well-formed body that breaks a rule (decisions §4).
  VALIDATION_FAILED: 422,
  // An `Idempotency-Key` reused for another request (method, path or body): nothing is run (docs/idempotency.md).
  IDEMPOTENCY_KEY_REUSED: 422,
  // Store closed (decisions §5.6).
  STORE_CLOSED: 423,
  // Leaky bucket over capacity (decisions §7.2).
  RATE_LIMITED: 429,
  // The answers kept for a caller's Idempotency-Keys reached their quota in bytes: a new key is not
  // taken until kept answers expire; Retry-After says when (decisions §12.5, docs/idempotency.md).
  IDEMPOTENCY_QUOTA_EXCEEDED: 429,
  // A bug; the body says only `Internal Server Error`, the log has the trace id (decisions §4).
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

// Fixed texts the decisions prescribe, used when a DomainError is raised without a message.
const DEFAULT_MESSAGE: Partial<Record<ErrorCode, string>> = {
  NOT_FOUND: 'Not Found',
  RATE_LIMITED: 'Too many requests',
  INTERNAL: 'Internal Server Error',
};

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message?: string) {
    super(message ?? DEFAULT_MESSAGE[code] ?? code);
    this.name = 'DomainError';
    this.code = code;
    this.status = ERROR_STATUS[code];
  }
}

/**
 * `instanceof`, or the same shape: two copies of this package (e.g. `dist` loaded beside a test's
 * source import) must still recognise each other's errors.
 */
export function isDomainError(e: unknown): e is DomainError {
  if (e instanceof DomainError) return true;
  if (typeof e !== 'object' || e === null) return false;
  const candidate = e as { name?: unknown; code?: unknown; status?: unknown; message?: unknown };
  return (
    candidate.name === 'DomainError' &&
    typeof candidate.message === 'string' &&
    isErrorCode(candidate.code) &&
    candidate.status === ERROR_STATUS[candidate.code]
  );
}
