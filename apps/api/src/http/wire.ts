// What every part of the HTTP edge agrees on: the content type, the size caps (decisions §3), and the
// prefixes of the two APIs. Kept apart from the hooks so that the error writer and the hooks do not
// import each other.

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** decisions §3.1: a request body over 8 MB is 413 (8 MiB: the larger reading of "8 MB" is accepted). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * decisions §3.4: no response exceeds 8 MB. Capped at 8,000,000 bytes, the smaller reading of
 * "8 MB", so a client checking either reading never sees a larger one.
 */
export const MAX_RESPONSE_BYTES = 8_000_000;
export const BODY_TOO_LARGE = 'Request body is larger than the 8 MB limit';
export const ADMIN_PREFIX = '/admin/openapi/';
export const OPERATOR_PREFIX = '/platform/';
