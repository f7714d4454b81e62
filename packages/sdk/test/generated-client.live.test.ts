/*
 * Issue 46: app teams outside TypeScript generate their clients from /openapi.json. Here the
 * example a newcomer copies (examples/openapi-client: openapi-typescript's types of the served
 * document, called through openapi-fetch) is checked as they would use it: the generated types and
 * the example compile under tsc --strict, and the example's main program, run by Node, goes through
 * the root README's flow against the real API with the operations of the document alone.
 *
 * The example's sources are copied into a folder of this run inside the example (so its imports of
 * openapi-fetch resolve as they do for a reader), beside the `schema.d.ts` generated here from the
 * served document: never a stale copy, and a reader's own `schema.d.ts` is left alone.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN, REPO_ROOT, sharedLiveServer, TYPE_CHECK_TIMEOUT_MS, type LiveServer } from './live-server';
import { typeErrors7 } from './type-check';

const EXAMPLE_DIR = join(REPO_ROOT, 'examples', 'openapi-client');
const SOURCES = ['client.ts', 'flow.ts', 'main.ts'];
const HANDLE = 'generated-client';

let server: LiveServer;
let dir: string;

beforeAll(async () => {
  server = await sharedLiveServer();
  const response = await fetch(`${server.origin}/openapi.json`);
  expect(response.status).toBe(200);
  const document = (await response.json()) as Record<string, unknown>;
  dir = mkdtempSync(join(EXAMPLE_DIR, '.test-run-'));
  for (const file of SOURCES) copyFileSync(join(EXAMPLE_DIR, file), join(dir, file));
  // What `pnpm --filter @platform/examples openapi-client:generate` writes: openapi-typescript's
  // defaults over the served document (its ESM entry, as Node's import loads it; openapi.live.test.ts).
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(document as never)));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a client generated from /openapi.json (examples/openapi-client)', () => {
  it(
    "type-checks under tsc --strict (TypeScript 7, every declaration file loaded): openapi-typescript's types of the served document, and the example calling them through openapi-fetch",
    () => {
      const args = [
        '--strict',
        '--noEmit',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
      ];
      const out = typeErrors7(dir, [...SOURCES, 'schema.d.ts'], args);
      expect(out).toBe('');
    },
    TYPE_CHECK_TIMEOUT_MS,
  );

  it('gives every property a type: none is widened to unknown by a schema branch without a type', () => {
    // e.g. `namespace: string | unknown` (= unknown) when anyOf branches carried only patterns.
    const schema = readFileSync(join(dir, 'schema.d.ts'), 'utf8');
    expect(schema.split('\n').filter((line) => /^\s*("[^"]+"|[\w$]+)\??: .*\| unknown\b/.test(line))).toEqual([]);
  });

  it('runs the README flow against the real API: pages through link, metafield rule, webhook, feedback, a signed token call', async () => {
    // Each file as tsc -p would emit it, beside its source (the imports name `./client.js`).
    for (const file of SOURCES) {
      const { outputText } = ts.transpileModule(readFileSync(join(dir, file), 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(dir, file.replace(/\.ts$/, '.js')), outputText);
    }
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'main.js')], {
      env: { PATH: process.env['PATH'] ?? '', BASE_URL: server.origin, OPERATOR_TOKEN, HANDLE },
      encoding: 'utf8',
    });
    // main prints a line per step, then the result as indented JSON.
    const result = JSON.parse(stdout.slice(stdout.indexOf('\n{\n') + 1)) as Record<string, unknown>;

    const titles = Array.from({ length: 7 }, (_, i) => `Generated ${i + 1}`);
    expect(result['titles']).toEqual(titles);
    const pages = result['pages'] as { count: number; ids: string[] }[];
    expect(pages.map((p) => p.count)).toEqual([3, 3, 1]);
    expect(new Set(pages.flatMap((p) => p.ids)).size).toBe(7);
    expect(result['shopName']).toBe(`Store ${HANDLE}`);
    expect(result['refusedValue']).toEqual({ status: 422, errors: expect.stringMatching(/^value: .*minimum length of 3/) });
    expect(result['webhookListed']).toBe(true);
    expect(result['feedbackStatuses']).toEqual([201, 200]);
    expect(result['operatorFeedbackStates']).toEqual(['success']);
    expect(result['refusedToken']).toMatchObject({ status: 401, i18nCode: 'INVALID_SIGNATURE' });
    expect(result['oauthScope']).toBe('read_store_information');
    expect(result['oauthShopHandle']).toBe(HANDLE);
    expect(stdout).toMatch(/^products: 7 in 3 pages$/m);
  });
});
