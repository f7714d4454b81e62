import { constantTimeEqual, hmacSha256, toBase64, toHex, type Bytes } from './hmac-sha256';

/** decisions §5.2: the token calls' `timestamp` must be within 10 minutes of the service clock. */
export const SIGN_TIMESTAMP_TOLERANCE_MS = 10 * 60 * 1000;

/**
 * decisions §5.2: the `sign` header of `POST /admin/oauth/token/*`: lowercase hex HMAC-SHA256 keyed
 * with the app secret over the raw body bytes followed by the `timestamp` header's text.
 */
export function signTokenRequest(input: { secret: string; rawBody: Bytes; timestamp: string | number }): string {
  return toHex(hmacSha256(input.secret, input.rawBody, String(input.timestamp)));
}

export type SignatureCheck =
  { ok: true } | { ok: false; reason: 'MISSING' | 'MALFORMED_TIMESTAMP' | 'STALE_TIMESTAMP' | 'BAD_SIGNATURE'; message: string };

const SIGN_FORMAT = /^[0-9a-fA-F]{64}$/;

/**
 * The checks of a token call that need neither the app's secret nor the body: the three headers are
 * there, `timestamp` is ms since the epoch within 10 minutes of `nowMs` either way, and `sign` has
 * the form of a hex HMAC-SHA256. The server runs them before it reads a byte of the body.
 */
export function checkTokenCallHeaders(input: {
  appKey: string | undefined;
  timestamp: string | undefined;
  sign: string | undefined;
  nowMs: number;
  toleranceMs?: number;
}): SignatureCheck {
  if (!input.appKey) return { ok: false, reason: 'MISSING', message: 'The appkey, timestamp and sign headers are required' };
  return checkTimestampAndSignForm(input);
}

function checkTimestampAndSignForm(input: {
  timestamp: string | undefined;
  sign: string | undefined;
  nowMs: number;
  toleranceMs?: number;
}): SignatureCheck {
  const { timestamp, sign } = input;
  if (!timestamp || !sign) {
    return { ok: false, reason: 'MISSING', message: 'The appkey, timestamp and sign headers are required' };
  }
  if (!/^\d{1,16}$/.test(timestamp)) {
    return { ok: false, reason: 'MALFORMED_TIMESTAMP', message: 'timestamp must be milliseconds since the epoch' };
  }
  const tolerance = input.toleranceMs ?? SIGN_TIMESTAMP_TOLERANCE_MS;
  if (Math.abs(Number(timestamp) - input.nowMs) > tolerance) {
    return { ok: false, reason: 'STALE_TIMESTAMP', message: 'timestamp is more than 10 minutes away from the service clock' };
  }
  if (!SIGN_FORMAT.test(sign)) {
    return { ok: false, reason: 'BAD_SIGNATURE', message: 'sign must be the 64 hex digits of an HMAC-SHA256' };
  }
  return { ok: true };
}

/**
 * Checks a token call's `timestamp` and `sign` (decisions §5.2): the window and form as
 * `checkTokenCallHeaders`, then `sign` against the HMAC of the exact body bytes and the timestamp,
 * in constant time. The reasons are distinct so a refusal can say what was wrong.
 */
export function verifyTokenRequest(input: {
  secret: string;
  rawBody: Bytes;
  timestamp: string | undefined;
  sign: string | undefined;
  nowMs: number;
  toleranceMs?: number;
}): SignatureCheck {
  const headers = checkTimestampAndSignForm(input);
  if (!headers.ok) return headers;
  const expected = signTokenRequest({ secret: input.secret, rawBody: input.rawBody, timestamp: input.timestamp! });
  if (!constantTimeEqual(input.sign!.toLowerCase(), expected)) {
    return { ok: false, reason: 'BAD_SIGNATURE', message: 'sign does not match the request' };
  }
  return { ok: true };
}

/**
 * decisions §5.2: a signed call is accepted once. What identifies it (the `sign` in one spelling:
 * hex of either case verifies, so a repeat in capitals is the same call), and how long it must be
 * remembered to refuse a repeat: until its timestamp leaves the window.
 */
export function signedCallKey(sign: string): string {
  return sign.toLowerCase();
}

export function signedCallExpiry(timestamp: string, toleranceMs = SIGN_TIMESTAMP_TOLERANCE_MS): Date {
  return new Date(Number(timestamp) + toleranceMs);
}

/**
 * decisions §5.2: the text signed in the OAuth redirect: every parameter but `sign`, sorted by name,
 * `k=v` joined with `&`, each value `encodeURIComponent`-encoded. Parameters without a value
 * (undefined) are left out; an empty string is kept (`customField=`).
 */
export function canonicalQuery(params: Record<string, string | undefined>): string {
  return Object.keys(params)
    .filter((name) => name !== 'sign' && params[name] !== undefined)
    .sort()
    .map((name) => `${name}=${encodeURIComponent(params[name]!)}`)
    .join('&');
}

/** decisions §5.2: the redirect's `sign`. */
export function signQuery(params: Record<string, string | undefined>, secret: string): string {
  return toHex(hmacSha256(secret, canonicalQuery(params)));
}

/** Verifies a redirect's `sign` (taken from `params.sign`) in constant time. */
export function verifyQuerySign(params: Record<string, string | undefined>, secret: string): boolean {
  const sign = params.sign;
  if (typeof sign !== 'string' || sign.length === 0) return false;
  return constantTimeEqual(sign.toLowerCase(), signQuery(params, secret));
}

/** An HMAC-SHA256 implementation: the MAC of `message` under `key` (strings as UTF-8). */
export type HmacSha256 = (key: string, message: Bytes) => Uint8Array;

/**
 * decisions §11.3: `X-Platform-Hmac-Sha256`, the lowercase hex HMAC-SHA256 of the exact body bytes.
 * A runtime with a native HMAC may pass it (the sender passes node:crypto's, about four times as fast
 * as @noble/hashes for a webhook body); the rule stays here.
 */
export function signWebhookBody(rawBody: Bytes, secret: string, hmac: HmacSha256 = hmacSha256): string {
  return toHex(hmac(secret, rawBody));
}

/** An HMAC-SHA256 implementation that writes the MAC as lowercase hex itself (node:crypto's `digest('hex')`). */
export type HmacSha256Hex = (key: string, message: Bytes) => string;

/**
 * The same signature from an implementation that encodes hex itself: the sender's, about 1.5 µs a
 * delivery less than bytes and then hex (bench/webhooks, 2026-11-27).
 */
export function signWebhookBodyHex(rawBody: Bytes, secret: string, hmacHex: HmacSha256Hex): string {
  return hmacHex(secret, rawBody);
}

/**
 * decisions §11.3: verifies a webhook signature over the exact body bytes, in constant time. Hex
 * (any case) is what the sender writes; base64 is accepted too, as other platforms' receivers send.
 */
export function verifyWebhookSignature(rawBody: Bytes, signature: string | undefined, secret: string): boolean {
  if (typeof signature !== 'string') return false;
  const received = signature.trim();
  if (received.length === 0) return false;
  const mac = hmacSha256(secret, rawBody);
  if (received.length === 64 && /^[0-9a-fA-F]+$/.test(received)) {
    return constantTimeEqual(received.toLowerCase(), toHex(mac));
  }
  return constantTimeEqual(received, toBase64(mac));
}
