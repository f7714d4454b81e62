/*
 * The served /openapi.json (decisions §12.3) against a standard validator, and the types
 * openapi-typescript generates from it compiled with tsc --strict.
 */
import { validate } from '@readme/openapi-parser';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedLiveServer, type LiveServer } from './live-server';
import { TYPE_CHECK_TIMEOUT_MS, typeErrors } from './type-check';

const SDK_DIR = resolve(__dirname, '..');
let server: LiveServer;
let document: Record<string, unknown>;
let dir: string;

beforeAll(async () => {
  server = await sharedLiveServer();
  const response = await fetch(`${server.origin}/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as Record<string, unknown>;
  dir = mkdtempSync(join(SDK_DIR, '.openapi-run-'));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('/openapi.json', () => {
  it('passes @readme/openapi-parser validation with no errors', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });

  it(
    'gives openapi-typescript types that compile under tsc --strict',
    async () => {
      // Its ESM entry, as Node's import loads it: the CommonJS declarations put `export =` beside
      // the named exports (under a @ts-ignore), which TypeScript 7 reads as the default alone.
      const { default: openapiTS, astToString } = await import('openapi-typescript');
      const types = astToString(await openapiTS(structuredClone(document) as never));
      writeFileSync(join(dir, 'api.d.ts'), types);
      // Use the generated types as an app would: a path's 200 body and an operation's query.
      writeFileSync(
        join(dir, 'use.ts'),
        `import type { paths } from './api';
type Listing = paths['/admin/openapi/{version}/products/products.json']['get'];
export type Page = Listing['responses'][200]['content']['application/json'];
export const ids = (page: Page): string[] => page.products.map((p) => p.id);
export type Query = NonNullable<Listing['parameters']['query']>;
export const q: Query = { limit: 10 };
type Create = paths['/admin/openapi/{version}/products/{id}/metafields.json']['post'];
type CreateBody = NonNullable<Create['requestBody']>['content']['application/json'];
export const typed: CreateBody = { metafield: { namespace: 'custom', key: 'size', type: 'number_integer', value: '42' } };
export const untyped: CreateBody = { metafield: { namespace: 'custom', key: 'size', value: 'M' } };
`,
      );
      const args = ['--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
      const out = typeErrors(dir, [join(dir, 'use.ts'), join(dir, 'api.d.ts')], args);
      expect(out).toBe('');
    },
    TYPE_CHECK_TIMEOUT_MS,
  );
});
