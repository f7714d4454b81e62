/*
 * The served /openapi.json (decisions §12.3) against a standard validator. The types
 * openapi-typescript generates from it, compiled with tsc --strict and called through openapi-fetch:
 * generated-client.live.test.ts.
 */
import { validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedLiveServer } from './live-server';

let document: Record<string, unknown>;

beforeAll(async () => {
  const server = await sharedLiveServer();
  const response = await fetch(`${server.origin}/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as Record<string, unknown>;
}, 120_000);

describe('/openapi.json', () => {
  it('passes @readme/openapi-parser validation with no errors', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });
});
