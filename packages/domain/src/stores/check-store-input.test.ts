import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEmail, checkStoreInput, checkStoreName, EMAIL, STORE_NAME } from './check-store-input';

describe(checkStoreName.name, () => {
  it('accepts names of any script, with inner spaces and punctuation', () => {
    for (const name of ['Demo', 'Café Noir', '東京ストア', 'A & B, Ltd.', ' x ']) expect(checkStoreName(name), name).toBeUndefined();
  });

  it('refuses a blank name', () => {
    for (const name of ['', ' ', '\u00A0\u2003']) expect(checkStoreName(name)).toBe("can't be blank");
  });

  it('refuses control characters: line breaks, tabs, NUL, DEL, C1', () => {
    for (const name of ['Shop\nX', 'Shop\tX', 'Shop\rX', 'A\u0000', 'A\u007F', 'A\u0085', 'A\u009F', '\u001B[31mred'])
      expect(checkStoreName(name), JSON.stringify(name)).toMatch(/control characters/);
  });

  it('agrees with the pattern the OpenAPI document states, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), (name) => {
        expect(checkStoreName(name) === undefined).toBe(STORE_NAME.test(name));
      }),
      { numRuns: 2000 },
    );
  });
});

describe(checkEmail.name, () => {
  it('accepts addresses mail software agrees on', () => {
    for (const email of ['owner@demo.localhost', 'a.b+c@example.com', "o'neil@x-y.example", 'x@localhost', 'A_1@SUB.Example.ORG'])
      expect(checkEmail(email), email).toBeUndefined();
  });

  it('refuses what is not an e-mail address', () => {
    const bad = [
      '',
      'owner',
      'owner@',
      '@example.com',
      'a b@example.com',
      'a@ex ample.com',
      'a..b@example.com',
      '.a@example.com',
      'a@-x.com',
      'a@x-.com',
      'a@x..com',
      'a@example.com\n',
      '"quoted"@example.com',
      'a@[127.0.0.1]',
      'a@b@c.com',
    ];
    for (const email of bad) expect(checkEmail(email), JSON.stringify(email)).toMatch(/e-mail address/);
  });

  it('refuses an address over 254 characters', () => {
    expect(checkEmail(`${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(10)}.com`)).toMatch(/too long/);
  });

  it('accepts every address fast-check makes up to 254 characters (the dot-atom subset of RFC 5322)', () => {
    fc.assert(
      fc.property(
        fc.emailAddress().filter((e) => e.length <= 254),
        (email) => {
          expect(checkEmail(email)).toBeUndefined();
          expect(EMAIL.test(email)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe(checkStoreInput.name, () => {
  it('names every bad field and leaves absent ones alone', () => {
    expect(checkStoreInput({})).toEqual([]);
    expect(checkStoreInput({ name: 'Shop\n', email: 'nope', customer_email: 'ok@example.com' })).toEqual([
      { field: 'name', message: 'must not hold control characters (such as line breaks or tabs)' },
      { field: 'email', message: 'must be an e-mail address such as owner@example.com' },
    ]);
  });
});
