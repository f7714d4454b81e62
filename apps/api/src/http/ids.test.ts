import { describe, expect, it } from 'vitest';
import { pathId, toId } from './ids';

describe(toId.name, () => {
  it('reads decimal ids up to 2^63-1 (decisions §3.5)', () => {
    expect(toId('1')).toBe(1n);
    expect(toId('9223372036854775807')).toBe(9223372036854775807n);
  });

  it.each(['9223372036854775808', '99999999999999999999', '-1', '01', '1.0', 'abc', '', ' 1'])('names nothing for %j', (raw) => {
    expect(toId(raw)).toBeUndefined();
  });
});

describe(pathId.name, () => {
  it('answers a path id that cannot exist with 404, not a database error', () => {
    expect(() => pathId('99999999999999999999')).toThrow(expect.objectContaining({ status: 404 }));
  });
});
