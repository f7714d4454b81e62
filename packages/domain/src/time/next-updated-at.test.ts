import { describe, expect, it } from 'vitest';
import { nextUpdatedAt } from './next-updated-at';

describe(nextUpdatedAt.name, () => {
  const at = (iso: string) => new Date(iso);

  it('is the current time when it is a rendered second or more past the stored value', () => {
    expect(nextUpdatedAt(at('2026-11-24T10:00:00.900Z'), at('2026-11-24T10:00:01.000Z'))).toEqual(at('2026-11-24T10:00:01.000Z'));
    expect(nextUpdatedAt(at('2026-11-24T10:00:00Z'), at('2026-11-24T12:00:00.250Z'))).toEqual(at('2026-11-24T12:00:00.250Z'));
  });

  it('moves to the next second when the update lands in the same second or the clock stands still', () => {
    expect(nextUpdatedAt(at('2026-11-24T10:00:00.100Z'), at('2026-11-24T10:00:00.800Z'))).toEqual(at('2026-11-24T10:00:01Z'));
    expect(nextUpdatedAt(at('2026-11-24T10:00:00Z'), at('2026-11-24T10:00:00Z'))).toEqual(at('2026-11-24T10:00:01Z'));
  });

  it('never goes back when the clock does', () => {
    expect(nextUpdatedAt(at('2026-11-24T10:00:00Z'), at('2026-01-01T00:00:00Z'))).toEqual(at('2026-11-24T10:00:01Z'));
  });

  it('is the current time when nothing was stored', () => {
    expect(nextUpdatedAt(null, at('2026-11-24T10:00:00Z'))).toEqual(at('2026-11-24T10:00:00Z'));
  });
});
