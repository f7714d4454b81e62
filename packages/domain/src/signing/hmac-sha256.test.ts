import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, hmacSha256, sha256, toBase64, toHex } from './hmac-sha256';

describe('sha256 and hmacSha256', () => {
  it('match node:crypto on the FIPS test vector and on block-boundary lengths', () => {
    expect(toHex(sha256('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000]) {
      const text = 'x'.repeat(length);
      expect(toHex(sha256(text))).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('match node:crypto on any bytes and keys (keys longer than a block included)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 150 }), (data, key) => {
        expect(toHex(hmacSha256(key, data))).toBe(createHmac('sha256', key).update(data).digest('hex'));
      }),
    );
  });

  it('signs strings as their UTF-8 bytes and parts as their concatenation', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), fc.string({ minLength: 1 }), (a, b, key) => {
        expect(toHex(hmacSha256(key, a, b))).toBe(createHmac('sha256', key).update(a + b, 'utf8').digest('hex'));
      }),
    );
  });

  it('encodes base64 as Buffer does', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }));;
  });
});

describe('constantTimeEqual', () => {
  it('is true only for equal strings', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abd', 'abc')).toBe(false);
    expect(constantTimeEqual('ab', 'abc')).toBe(false);
    expect(constantTimeEqual('abcd', 'abc')).toBe(false);
    expect(constantTimeEqual('', 'abc')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      expect(constantTimeEqual(a, b)).toBe(a === b);
    }));
  });
});
