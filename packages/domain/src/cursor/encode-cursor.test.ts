import { describe, it, expect } from 'vitest';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { decodeCursor, encodeCursor, type CursorPayload } from './encode-cursor';

const SECRET = 'test-secret-0123456789';
const EXPECT = { r: 'products', s: '42' };
const INVALID = { ok: false, message: 'page_info: is invalid' };

const sample: CursorPayload = { r: 'products', s: '42', d: 'next', b: '1050', q: { since_id: '1000' }, l: 50, f: 'id,title' };

const payloadArb: fc.Arbitrary<CursorPayload> = fc.record(
  {
    r: fc.constantFrom('products', 'metafield_definitions', 'webhooks'),
    s: fc.string(),
    d: fc.constantFrom('next' as const, 'prev' as const),
    b: fc.bigInt({ min: 0n, max: 9223372036854775807n }).map(String),
    q: fc.dictionary(fc.string(), fc.string()),
    l: fc.integer({ min: 1, max: 1000 }),
    f: fc.string(),
  },
  { requiredKeys: ['r', 's', 'd', 'b', 'q', 'l'] },
);

function flipChar(token: string, index: number): string {
  const ch = token.charAt(index);
  const replacement = ch === 'A' ? 'B' : 'A';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe('encodeCursor / decodeCursor', () => {
  it('round-trips a payload for the same resource and scope', () => {
    expect(decodeCursor(encodeCursor(sample, SECRET), SECRET, EXPECT)).toEqual({ ok: true, payload: sample });
  });

  it('round-trips any payload and uses URL-safe characters only', () => {
    fc.assert(
      fc.property(payloadArb, fc.string({ minLength: 1 }), (payload, secret) => {
        const token = encodeCursor(payload, secret);
        expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        expect(decodeCursor(token, secret, { r: payload.r, s: payload.s })).toEqual({ ok: true, payload });
      }),
    );
  });

  it('rejects a token with any single character changed', () => {
    fc.assert(
      fc.property(payloadArb, fc.nat(), (payload, n) => {
        const token = encodeCursor(payload, SECRET);
        const index = n % token.length;
        fc.pre(token.charAt(index) !== '.');
        expect(decodeCursor(flipChar(token, index), SECRET, { r: payload.r, s: payload.s })).toEqual(INVALID);
      }),
    );
  });

  it('rejects a token signed with another secret', () => {
    expect(decodeCursor(encodeCursor(sample, 'other-secret'), SECRET, EXPECT)).toEqual(INVALID);
  });

  it('rejects a cursor issued for another store or another resource', () => {
    const token = encodeCursor(sample, SECRET);
    expect(decodeCursor(token, SECRET, { r: 'products', s: '43' })).toEqual(INVALID);
    expect(decodeCursor(token, SECRET, { r: 'webhooks', s: '42' })).toEqual(INVALID);
  });

  it('rejects a body swapped in from another cursor while keeping the signature', () => {
    const a = encodeCursor(sample, SECRET);
    const b = encodeCursor({ ...sample, b: '9999' }, SECRET);
    const spliced = `${b.split('.')[0]}.${a.split('.')[1]}`;
    expect(decodeCursor(spliced, SECRET, EXPECT)).toEqual(INVALID);
  });

  it('rejects garbage, empty and oversized tokens', () => {
    for (const token of ['', '.', 'abc', 'abc.', '.abc', 'a.b.c', 'a b.c', 'x'.repeat(10_000) + '.y']) {
      expect(decodeCursor(token, SECRET, EXPECT), token.slice(0, 20)).toEqual(INVALID);
    }
  });

  it('rejects a correctly signed body that is not JSON or has the wrong shape', () => {
    // Sign arbitrary bodies the way the encoder does, to reach the checks behind the MAC.
    const signed = (json: string): string => {
      const body = Buffer.from(json, 'utf8').toString('base64url');
      const mac = createHmac('sha256', SECRET).update('page_info.v1.').update(body).digest('base64url');
      return `${body}.${mac}`;
    };
    expect(decodeCursor(signed(JSON.stringify(sample)), SECRET, EXPECT)).toEqual({ ok: true, payload: sample });
    for (const json of [
      '{not json',
      'null',
      '[]',
      JSON.stringify({ ...sample, d: 'sideways' }),
      JSON.stringify({ ...sample, b: '-1' }),
      JSON.stringify({ ...sample, b: '9223372036854775808' }),
      JSON.stringify({ ...sample, b: 12 }),
      JSON.stringify({ ...sample, l: 0 }),
      JSON.stringify({ ...sample, l: 1.5 }),
      JSON.stringify({ ...sample, q: { since_id: 5 } }),
      JSON.stringify({ ...sample, q: null }),
      JSON.stringify({ ...sample, f: 3 }),
    ]) {
      expect(decodeCursor(signed(json), SECRET, EXPECT), json).toEqual(INVALID);
    }
  });

  it('keeps a __proto__ filter key as data, not as the prototype', () => {
    const payload = { ...sample, q: JSON.parse('{"__proto__":"x","since_id":"1"}') as Record<string, string> };
    const decoded = decodeCursor(encodeCursor(payload, SECRET), SECRET, EXPECT);
    expect(decoded.ok && Object.getPrototypeOf(decoded.payload.q)).toBe(Object.prototype);
    expect(decoded.ok && Object.keys(decoded.payload.q)).toEqual(['__proto__', 'since_id']);
  });

  it('refuses to sign with an empty secret or a malformed payload', () => {
    expect(() => encodeCursor(sample, '')).toThrow(TypeError);
    expect(() => encodeCursor({ ...sample, b: 'abc' }, SECRET)).toThrow(TypeError);
  });
});
