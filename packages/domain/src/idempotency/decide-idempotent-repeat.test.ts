import { describe, expect, it } from 'vitest';
import {
  decideIdempotentRepeat,
  IDEMPOTENCY_KEY_TTL_MS,
  idempotencyFingerprint,
  type StoredIdempotencyKey,
} from './decide-idempotent-repeat';

const now = new Date('2026-11-22T12:00:00Z');
const realNow = new Date('2026-11-25T18:00:00Z');
const request = { method: 'POST', url: '/admin/openapi/v20260901/webhooks.json', body: { webhook: { topic: 'a', address: 'b' } } };
const fingerprint = idempotencyFingerprint(request);
const stored = (extra: Partial<StoredIdempotencyKey> = {}): StoredIdempotencyKey => ({
  fingerprint,
  state: 'done',
  expiresAt: new Date(now.getTime() + 1000),
  lockedUntil: null,
  ...extra,
});

describe(idempotencyFingerprint.name, () => {
  it('is the same for the same method, URL and JSON value, whatever the method case', () => {
    expect(idempotencyFingerprint({ ...request, method: 'post', body: JSON.parse(JSON.stringify(request.body)) })).toBe(fingerprint);
  });

  it('differs for another body, path, query or method, and for no body against an empty object', () => {
    const others = [
      { ...request, body: { webhook: { topic: 'a', address: 'c' } } },
      { ...request, url: '/admin/openapi/v20260901/products/1/metafields.json' },
      { ...request, url: `${request.url}?x=1` },
      { ...request, method: 'PUT' },
      { ...request, body: undefined },
      { ...request, body: {} },
    ];
    const prints = new Set([fingerprint, ...others.map(idempotencyFingerprint)]);
    expect(prints.size).toBe(others.length + 1);
  });
});

describe(decideIdempotentRepeat.name, () => {
  it('replays a finished first request of the same fingerprint within 24 hours', () => {
    expect(decideIdempotentRepeat(stored(), { fingerprint, now, realNow })).toBe('replay');
    expect(IDEMPOTENCY_KEY_TTL_MS).toBe(86_400_000);
  });

  it('forgets a key at its expiry (service clock), whatever else is stored', () => {
    for (const extra of [{}, { fingerprint: 'other' }, { state: 'running' as const, lockedUntil: new Date(realNow.getTime() + 60_000) }]) {
      expect(decideIdempotentRepeat(stored({ expiresAt: now, ...extra }), { fingerprint, now, realNow })).toBe('expired');
    }
  });

  it('refuses another request under the key, finished or still running', () => {
    expect(decideIdempotentRepeat(stored({ fingerprint: 'other' }), { fingerprint, now, realNow })).toBe('mismatch');
    const running = stored({ fingerprint: 'other', state: 'running', lockedUntil: new Date(realNow.getTime() + 1000) });
    expect(decideIdempotentRepeat(running, { fingerprint, now, realNow })).toBe('mismatch');
  });

  it('says in progress while the first request is held, abandoned once its claim lapsed (real time)', () => {
    const held = stored({ state: 'running', lockedUntil: new Date(realNow.getTime() + 1) });
    expect(decideIdempotentRepeat(held, { fingerprint, now, realNow })).toBe('in-progress');
    const lapsed = stored({ state: 'running', lockedUntil: realNow });
    expect(decideIdempotentRepeat(lapsed, { fingerprint, now, realNow })).toBe('abandoned');
  });
});
