import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalQuery,
  signQuery,
  signTokenRequest,
  signWebhookBody,
  signWebhookBodyHex,
  verifyQuerySign,
  checkTokenCallHeaders,
  signedCallExpiry,
  signedCallKey,
  verifyTokenRequest,
  verifyWebhookSignature,
} from './sign';

const secret = 'app-secret-0123456789';
const now = Date.UTC(2026, 10, 25, 12, 0, 0);

describe('token call signature (decisions §5.2)', () => {
  it('is the hex HMAC of the raw body followed by the timestamp', () => {
    const body = '{"code":"abc"}';
    expect(signTokenRequest({ secret, rawBody: body, timestamp: now })).toBe(
      createHmac('sha256', secret)
        .update(body + String(now))
        .digest('hex'),
    );
  });

  it('verifies a good signature, also in upper case', () => {
    const sign = signTokenRequest({ secret, rawBody: '', timestamp: now });
    expect(verifyTokenRequest({ secret, rawBody: '', timestamp: String(now), sign, nowMs: now })).toEqual({ ok: true });
    expect(verifyTokenRequest({ secret, rawBody: '', timestamp: String(now), sign: sign.toUpperCase(), nowMs: now }).ok).toBe(true);
  });

  it('accepts a timestamp 10 minutes off and refuses one 10 minutes and 1 ms off', () => {
    for (const offset of [10 * 60_000, -10 * 60_000]) {
      const ts = String(now + offset);
      const sign = signTokenRequest({ secret, rawBody: '', timestamp: ts });
      expect(verifyTokenRequest({ secret, rawBody: '', timestamp: ts, sign, nowMs: now }).ok).toBe(true);
    }
    const ts = String(now - 10 * 60_000 - 1);
    const sign = signTokenRequest({ secret, rawBody: '', timestamp: ts });
    expect(verifyTokenRequest({ secret, rawBody: '', timestamp: ts, sign, nowMs: now })).toMatchObject({
      ok: false,
      reason: 'STALE_TIMESTAMP',
    });
  });

  it('names what is wrong: missing headers, a malformed timestamp, a signature of other bytes', () => {
    expect(verifyTokenRequest({ secret, rawBody: '', timestamp: undefined, sign: 'x', nowMs: now })).toMatchObject({ reason: 'MISSING' });
    expect(verifyTokenRequest({ secret, rawBody: '', timestamp: '1e12', sign: 'x', nowMs: now })).toMatchObject({
      reason: 'MALFORMED_TIMESTAMP',
    });
    const sign = signTokenRequest({ secret, rawBody: '{"code":"a"}', timestamp: now });
    expect(verifyTokenRequest({ secret, rawBody: '{"code":"b"}', timestamp: String(now), sign, nowMs: now })).toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
    expect(verifyTokenRequest({ secret: 'other', rawBody: '{"code":"a"}', timestamp: String(now), sign, nowMs: now })).toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
  });
});

describe('token call headers, checked before the body is read (decisions §5.2)', () => {
  const sign = 'ab'.repeat(32);

  it('needs appkey, timestamp and sign', () => {
    expect(checkTokenCallHeaders({ appKey: undefined, timestamp: String(now), sign, nowMs: now })).toMatchObject({ reason: 'MISSING' });
    expect(checkTokenCallHeaders({ appKey: 'key', timestamp: String(now), sign: '', nowMs: now })).toMatchObject({ reason: 'MISSING' });
    expect(checkTokenCallHeaders({ appKey: 'key', timestamp: String(now), sign, nowMs: now })).toEqual({ ok: true });
  });

  it('refuses a timestamp out of the window and a sign that cannot be an HMAC-SHA256', () => {
    expect(checkTokenCallHeaders({ appKey: 'key', timestamp: String(now + 10 * 60_000 + 1), sign, nowMs: now })).toMatchObject({
      reason: 'STALE_TIMESTAMP',
    });
    for (const bad of ['ab'.repeat(31), 'ab'.repeat(33), 'zz'.repeat(32), `${'ab'.repeat(31)}a `]) {
      expect(checkTokenCallHeaders({ appKey: 'key', timestamp: String(now), sign: bad, nowMs: now })).toMatchObject({
        reason: 'BAD_SIGNATURE',
      });
    }
  });

  it('names one call by its sign whatever the case of its hex, remembered until its timestamp leaves the window', () => {
    expect(signedCallKey(sign.toUpperCase())).toBe(signedCallKey(sign));
    expect(signedCallExpiry(String(now)).getTime()).toBe(now + 10 * 60_000);
  });
});

describe('redirect signature (decisions §5.2)', () => {
  const params = { appkey: 'k1', code: 'c-1', handle: 'demo', timestamp: '1764072000000', customField: 'a b&c=d/é' };

  it('signs the parameters but sign, sorted by name, values URL-encoded', () => {
    expect(canonicalQuery({ ...params, sign: 'ignored' })).toBe(
      'appkey=k1&code=c-1&customField=a%20b%26c%3Dd%2F%C3%A9&handle=demo&timestamp=1764072000000',
    );
    expect(signQuery(params, secret)).toBe(createHmac('sha256', secret).update(canonicalQuery(params)).digest('hex'));
  });

  it('verifies the sign read back from a redirect URL, and refuses any changed parameter', () => {
    const url = new URL('https://app.example/callback');
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    url.searchParams.set('sign', signQuery(params, secret));
    const received = Object.fromEntries(url.searchParams);
    expect(verifyQuerySign(received, secret)).toBe(true);
    expect(verifyQuerySign({ ...received, handle: 'other' }, secret)).toBe(false);
    expect(verifyQuerySign({ ...received, sign: '' }, secret)).toBe(false);
    expect(verifyQuerySign(received, 'another-secret')).toBe(false);
  });
});

describe('webhook signature (decisions §11.3)', () => {
  const body = Buffer.from('{"inventory_item":{"id":"1","sku":"é"}}');

  it('is the lowercase hex HMAC of the exact bytes', () => {
    expect(signWebhookBody(body, secret)).toBe(createHmac('sha256', secret).update(body).digest('hex'));
  });

  it('is the same through a native HMAC passed in (the sender passes node:crypto), for bytes and for text', () => {
    const native = (key: string, message: string | Uint8Array) => createHmac('sha256', key).update(message).digest();
    const expected = signWebhookBody(body, secret);
    expect(signWebhookBody(body, secret, native)).toBe(expected);
    expect(signWebhookBody(body.toString('utf8'), secret, native)).toBe(expected);
    expect(signWebhookBody(body, 'other-secret', native)).not.toBe(expected);
  });

  it('is the same through a native HMAC that writes hex itself (the sender), for bytes and for text', () => {
    const nativeHex = (key: string, message: string | Uint8Array) => createHmac('sha256', key).update(message).digest('hex');
    const expected = signWebhookBody(body, secret);
    expect(signWebhookBodyHex(body, secret, nativeHex)).toBe(expected);
    expect(signWebhookBodyHex(body.toString('utf8'), secret, nativeHex)).toBe(expected);
    expect(signWebhookBodyHex(body, 'other-secret', nativeHex)).not.toBe(expected);
  });

  it('verifies hex (any case) and base64, and refuses other bytes, secrets and junk', () => {
    const hex = signWebhookBody(body, secret);
    const b64 = createHmac('sha256', secret).update(body).digest('base64');
    expect(verifyWebhookSignature(body, hex, secret)).toBe(true);
    expect(verifyWebhookSignature(body, hex.toUpperCase(), secret)).toBe(true);
    expect(verifyWebhookSignature(body, b64, secret)).toBe(true);
    expect(verifyWebhookSignature(body.toString('utf8'), hex, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.concat([body, Buffer.from(' ')]), hex, secret)).toBe(false);
    expect(verifyWebhookSignature(body, hex, 'other-secret')).toBe(false);
    expect(verifyWebhookSignature(body, undefined, secret)).toBe(false);
    expect(verifyWebhookSignature(body, '', secret)).toBe(false);
    expect(verifyWebhookSignature(body, 'zz', secret)).toBe(false);
  });
});
