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
  | { ok: true }
  | { ok: false; reason: 'MISSING' | 'MALFORMED_TIMESTAMP' | 'STALE_TIMESTAMP' | 'BAD_SIGNATURE'; message: string };

/**
 * Checks a token call's `timestamp` (ms since the epoch, within 10 minutes of `nowMs` either way)
 * and its `sign`, in constant time. The reasons are distinct so a refusal can say what was wrong.
 */
export function verifyTokenRequest(input: {
  secret: string;
  rawBody: Bytes;
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
  const expected = signTokenRequest({ secret: input.secret, rawBody: input.rawBody, timestamp });
  if (!constantTimeEqual(sign.toLowerCase(), expected)) {
    return { ok: false, reason: 'BAD_SIGNATURE', message: 'sign does not match the request' };
  }
  return { ok: true };
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

/** decisions §11.3: `X-Platform-Hmac-Sha256`, the lowercase hex HMAC-SHA256 of the exact body bytes. */
export function signWebhookBody(rawBody: Bytes, secret: string): string {
  return toHex(hmacSha256(secret, rawBody));
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
