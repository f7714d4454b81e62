import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkIdempotencyKey } from './check-idempotency-key';

describe(checkIdempotencyKey.name, () => {
  it('takes a request without the header as not idempotent', () => {
    expect(checkIdempotencyKey([])).toEqual({ ok: true, key: undefined });
  });

  it('accepts 1 to 255 printable ASCII characters, spaces and punctuation included', () => {
    for (const key of ['a', 'x'.repeat(255), '0b6d5c1e-uuid', 'order 42 / retry #1 ~!@$%^&*()']) {
      expect(checkIdempotencyKey([key])).toEqual({ ok: true, key });
    }
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 255 }),
        (key) => {
          expect(checkIdempotencyKey([key])).toEqual({ ok: true, key });
        },
      ),
    );
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'x'.repeat(256)],
    ['a control character', 'key\u0007'],
    ['a tab', 'a\tb'],
    ['DEL', 'a\u007f'],
    ['a character beyond ASCII', 'clé'],
  ])('refuses a key that is %s', (_what, key) => {
    expect(checkIdempotencyKey([key])).toEqual({ ok: false, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' });
  });

  it('refuses the header sent twice', () => {
    expect(checkIdempotencyKey(['a', 'b'])).toEqual({ ok: false, message: 'Idempotency-Key must be sent once' });
  });
});
