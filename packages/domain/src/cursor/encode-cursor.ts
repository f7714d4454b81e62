import { createHmac, timingSafeEqual } from 'node:crypto';

// decisions §6.2: `page_info` is opaque (base64url) and tamper-evident (HMAC-SHA256 with PLATFORM_SECRET).
export interface CursorPayload {
  /** Resource listed, e.g. `products`. */
  r: string;
  /** Scope the listing belongs to, e.g. the store id. */
  s: string;
  /** Direction from the boundary. */
  d: 'next' | 'prev';
  /** Boundary id, decimal string. */
  b: string;
  /** The first request's filters, e.g. `since_id`. */
  q: Record<string, string>;
  /** Page size. */
  l: number;
  /** Requested fields, as given. */
  f?: string;
}

export type CursorResult = { ok: true; payload: CursorPayload } | { ok: false; message: string };

export const INVALID_CURSOR_MESSAGE = 'page_info: is invalid';

// Domain separation: the same secret may sign other things.
const MAC_CONTEXT = 'page_info.v1.';
const TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
// Far above any cursor we issue; stops hashing and parsing of arbitrarily long input.
const MAX_TOKEN_LENGTH = 8192;
const DECIMAL_ID = /^(0|[1-9][0-9]{0,18})$/;

function mac(body: string, secret: string): string {
  return createHmac('sha256', secret).update(MAC_CONTEXT).update(body).digest('base64url');
}

function requireSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('cursor: the signing secret is empty');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The payload rebuilt from known keys only, or undefined when its shape is wrong. */
function toPayload(v: unknown): CursorPayload | undefined {
  if (!isPlainObject(v)) return undefined;
  const { r, s, d, b, q, l, f } = v;
  if (typeof r !== 'string' || typeof s !== 'string') return undefined;
  if (d !== 'next' && d !== 'prev') return undefined;
  if (typeof b !== 'string' || !DECIMAL_ID.test(b) || BigInt(b) > 9223372036854775807n) return undefined;
  if (typeof l !== 'number' || !Number.isSafeInteger(l) || l < 1) return undefined;
  if (f !== undefined && typeof f !== 'string') return undefined;
  if (!isPlainObject(q)) return undefined;
  const entries = Object.entries(q);
  if (!entries.every(([, value]) => typeof value === 'string')) return undefined;
  // fromEntries defines own properties, so a `__proto__` key cannot reach the prototype.
  const filters = Object.fromEntries(entries) as Record<string, string>;
  return f === undefined ? { r, s, d, b, q: filters, l } : { r, s, d, b, q: filters, l, f };
}

/** `base64url(JSON).base64url(HMAC-SHA256)`: URL-safe characters only. */
export function encodeCursor(payload: CursorPayload, secret: string): string {
  requireSecret(secret);
  const checked = toPayload(payload);
  if (checked === undefined) throw new TypeError('cursor: payload has the wrong shape');
  const body = Buffer.from(JSON.stringify(checked), 'utf8').toString('base64url');
  return `${body}.${mac(body, secret)}`;
}

/**
 * Verifies the MAC in constant time, then the shape, then that the cursor was issued for this
 * resource and scope (a cursor of another store or listing is foreign). Every failure has the same message.
 */
export function decodeCursor(token: string, secret: string, expect: { r: string; s: string }): CursorResult {
  requireSecret(secret);
  const invalid: CursorResult = { ok: false, message: INVALID_CURSOR_MESSAGE };
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN.test(token)) return invalid;
  const dot = token.indexOf('.');
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'utf8');
  const expected = Buffer.from(mac(body, secret), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return invalid;
  }
  const payload = toPayload(parsed);
  if (payload === undefined || payload.r !== expect.r || payload.s !== expect.s) return invalid;
  return { ok: true, payload };
}
