import { describe, it, expect } from 'vitest';
import { hashToken, safeEqual } from './hash-token';

describe('hashToken', () => {
  it('is the lowercase hex SHA-256 of the token', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('differs for different tokens', () => {
    expect(hashToken('token-a')).not.toBe(hashToken('token-b'));
  });
});

describe('safeEqual', () => {
  it('is true for equal strings, including empty ones', () => {
    expect(safeEqual('s3cret', 's3cret')).toBe(true);
    expect(safeEqual('', '')).toBe(true);
  });

  it('is false for different strings of equal or different length, without throwing', () => {
    expect(safeEqual('s3cret', 's3creT')).toBe(false);
    expect(safeEqual('s3cret', 's3cret-longer')).toBe(false);
    expect(safeEqual('', 'x')).toBe(false);
  });

  it('compares Unicode text exactly', () => {
    expect(safeEqual('é', 'é')).toBe(true);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
  });
});
