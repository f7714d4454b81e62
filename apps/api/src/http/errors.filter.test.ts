import { z } from 'zod';
import { redactQuerySecrets } from './conventions';
import { describe, expect, it } from 'vitest';
import { boundedMessage, formatZodError } from './errors.filter';

describe(formatZodError.name, () => {
  it('names at most 20 problems and counts the rest', () => {
    const result = z.array(z.object({ a: z.string() })).safeParse(Array.from({ length: 400_000 }, () => null));
    expect(result.success).toBe(false);
    const message = formatZodError((result as { error: z.ZodError }).error, 'body');
    expect(message.split('; ')).toHaveLength(21);
    expect(message).toMatch(/^\[0\]: expected object, received null; \[1\]: /);
    expect(message).toMatch(/; and 399980 more problems$/);
  });

  it('reads a union without a message of its own through the branch that got furthest', () => {
    const schema = z.union([
      z.object({ product: z.object({ title: z.string() }) }),
      z.object({ products: z.array(z.object({ title: z.string() })) }),
    ]);
    const result = schema.safeParse({ products: [{ title: 'ok' }, { title: 5 }] });
    expect(formatZodError((result as { error: z.ZodError }).error, 'body')).toBe('products[1].title: expected string, received number');
  });
});

describe(boundedMessage.name, () => {
  it('keeps a message under the bound, and cuts a longer one without splitting a surrogate pair', () => {
    expect(boundedMessage('short')).toBe('short');
    const cut = boundedMessage('😀'.repeat(20_000));
    expect(cut.length).toBeLessThanOrEqual(16_384);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});

describe('redactQuerySecrets', () => {
  it('keeps a one-time sign-in token and an OAuth code out of the request log line', () => {
    expect(redactQuerySecrets('/admin/sign-in?token=abc123')).toBe('/admin/sign-in?token=***');
    expect(redactQuerySecrets('/cb?appkey=k&code=xyz&handle=demo')).toBe('/cb?appkey=k&code=***&handle=demo');
    expect(redactQuerySecrets('/admin/openapi/v20260901/products/products.json?limit=5')).toBe(
      '/admin/openapi/v20260901/products/products.json?limit=5',
    );
  });
});
