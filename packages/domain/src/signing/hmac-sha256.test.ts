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
        expect(toHex(hmacSha256(key, a, b))).toBe(
          createHmac('sha256', key)
            .update(a + b, 'utf8')
            .digest('hex'),
        );
      }),
    );
  });

  it('encodes base64 as Buffer does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      }),
    );
  });
});

// Published vectors, independent of node:crypto: FIPS 180-2 appendix B and RFC 4231 section 4.
describe('known answers', () => {
  it('sha256: FIPS 180-2 B.1-B.3 and the empty message', () => {
    expect(toHex(sha256(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(toHex(sha256('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(toHex(sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(toHex(sha256('a'.repeat(1_000_000)))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  const bytes = (length: number, value: number) => new Uint8Array(length).fill(value);
  const hex = (text: string) => Uint8Array.from(text.match(/../g)!.map((pair) => parseInt(pair, 16)));
  it.each([
    ['1', bytes(20, 0x0b), 'Hi There', 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
    ['2', 'Jefe', 'what do ya want for nothing?', '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
    ['3', bytes(20, 0xaa), bytes(50, 0xdd), '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
    [
      '4',
      hex('0102030405060708090a0b0c0d0e0f10111213141516171819'),
      bytes(50, 0xcd),
      '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
    ],
    [
      '6',
      bytes(131, 0xaa),
      'Test Using Larger Than Block-Size Key - Hash Key First',
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    ],
    [
      '7',
      bytes(131, 0xaa),
      'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
      '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    ],
  ])('hmacSha256: RFC 4231 test case %s', (_case, key, data, expected) => {
    expect(toHex(hmacSha256(key, data))).toBe(expected);
  });

  it('hmacSha256: RFC 4231 test case 5, truncated to 128 bits', () => {
    expect(toHex(hmacSha256(bytes(20, 0x0c), 'Test With Truncation')).slice(0, 32)).toBe('a3b6167473100ee06e0c796c2955552b');
  });

  it('hmacSha256 of several parts is the MAC of their concatenation (RFC 4231 case 2, split)', () => {
    expect(toHex(hmacSha256('Jefe', 'what do ya', ' want ', 'for nothing?'))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
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
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
      }),
    );
  });
});
