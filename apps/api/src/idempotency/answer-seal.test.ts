import { describe, expect, it } from 'vitest';
import { AnswerSeal, SEAL_OVERHEAD, type SealContext } from './answer-seal';

const OLD = 'the-secret-before-the-rotation-0123';
const NEW = 'the-secret-after-the-rotation-45678';
const context: SealContext = { scope: 'app:1:store:2', key: 'key-1', fingerprint: 'a'.repeat(64), status: 201 };
const answer = JSON.stringify({ access_token: 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0', app: { app_secret: 'sec_0123456789abcdef' } });

describe(AnswerSeal.name, () => {
  it('opens what it sealed, and the sealed bytes hold none of the text', async () => {
    const seal = new AnswerSeal([NEW]);
    const sealed = await seal.seal(answer, context);
    expect(await seal.open(sealed, context)).toBe(answer);
    expect(sealed.toString('latin1')).not.toContain('tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0');
    expect(sealed.toString('latin1')).not.toContain('sec_0123456789abcdef');
    // A fresh IV each time: the same answer never seals to the same bytes.
    expect((await seal.seal(answer, context)).equals(sealed)).toBe(false);
  });

  it('compresses before it encrypts: a large repetitive answer is kept in a fraction of its size', async () => {
    const big = JSON.stringify({ metafields: Array.from({ length: 5000 }, (_, i) => ({ id: String(i), key: `k${i % 20}`, value: 'v' })) });
    const sealed = await new AnswerSeal([NEW]).seal(big, context);
    expect(sealed.length).toBeLessThan(big.length / 10);
    expect(await new AnswerSeal([NEW]).open(sealed, context)).toBe(big);
  });

  it('keeps the empty body', async () => {
    const seal = new AnswerSeal([NEW]);
    const sealed = await seal.seal('', context);
    expect(sealed.length).toBeGreaterThanOrEqual(SEAL_OVERHEAD);
    expect(await seal.open(sealed, context)).toBe('');
  });

  it('opens an answer the previous secret sealed only while that secret is given', async () => {
    const sealed = await new AnswerSeal([OLD]).seal(answer, context);
    expect(await new AnswerSeal([NEW, OLD]).open(sealed, context)).toBe(answer);
    expect(await new AnswerSeal([NEW]).open(sealed, context)).toBeUndefined();
  });

  it('does not open an answer moved to another row (another scope, key, request or status)', async () => {
    const seal = new AnswerSeal([NEW]);
    const sealed = await seal.seal(answer, context);
    for (const other of [
      { ...context, scope: 'app:3:store:2' },
      { ...context, key: 'key-2' },
      { ...context, fingerprint: 'b'.repeat(64) },
      { ...context, status: 200 },
    ]) {
      expect(await seal.open(sealed, other)).toBeUndefined();
    }
  });

  it('does not open altered or truncated bytes', async () => {
    const seal = new AnswerSeal([NEW]);
    const sealed = await seal.seal(answer, context);
    for (const at of [0, 1, 6, 20, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[at] = altered[at]! ^ 0x01;
      expect(await seal.open(altered, context)).toBeUndefined();
    }
    expect(await seal.open(sealed.subarray(0, SEAL_OVERHEAD - 1), context)).toBeUndefined();
    expect(await seal.open(Buffer.from(answer), context)).toBeUndefined();
  });
});
