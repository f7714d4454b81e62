import { describe, expect, it } from 'vitest';
import { traceIdOf } from './trace-context';

describe('traceIdOf (W3C traceparent)', () => {
  it('takes the trace id of a valid header', () => {
    expect(traceIdOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    // A later version may carry more fields after the flags.
    expect(traceIdOf('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('ignores what the spec says to ignore', () => {
    for (const bad of [
      undefined,
      '',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
    ]) {
      expect(traceIdOf(bad)).toBeUndefined();
    }
    expect(traceIdOf(['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'x'])).toBeUndefined();
  });
});
