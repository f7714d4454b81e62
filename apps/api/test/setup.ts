import 'reflect-metadata';
import { afterAll, expect } from 'vitest';
import { serverErrors } from './harness';

// decisions §4: no request in the suite, good or bad, may get a 500.
afterAll(() => {
  expect(serverErrors).toEqual([]);
});
