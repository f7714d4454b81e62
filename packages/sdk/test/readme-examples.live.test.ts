/*
 * The README examples, run against the real API so they cannot rot. A ```ts block preceded by
 * `<!-- example -->` is one program; `<!-- example: continues -->` appends a block to the one
 * before. Each program is compiled with TypeScript and run by Node from inside this package, so
 * `@platform/sdk` is the built package; `http://127.0.0.1:3000` is replaced by the live server's
 * address and `TOKEN` is a real token of a store with products.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SDK_DIR, sharedLiveServer, strictTypeErrors7, TYPE_CHECK_TIMEOUT_MS, type LiveServer } from './live-server';

const READMES = { 'packages/sdk/README.md': join(SDK_DIR, 'README.md'), 'README.md': join(REPO_ROOT, 'README.md') };

/** The programs of a README, in order. */
export function examplesOf(markdown: string): string[] {
  const programs: string[] = [];
  const pattern = /<!--\s*example(:\s*continues)?\s*-->\s*\n```ts\n([\s\S]*?)\n```/g;
  for (const match of markdown.matchAll(pattern)) {
    if (match[1] && programs.length > 0) programs[programs.length - 1] += `\n${match[2]}`;
    else programs.push(match[2]!);
  }
  return programs;
}

let server: LiveServer;
let token: string;
let dir: string;

beforeAll(async () => {
  server = await sharedLiveServer();
  await server.createStore('readme');
  ({ token } = await server.createPrivateApp('readme'));
  await server.createProducts('readme', 12, (i) => ({ title: `Readme ${i}` }));
  dir = mkdtempSync(join(SDK_DIR, '.readme-run-'));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('README examples', () => {
  it('finds the marked examples', () => {
    expect(examplesOf(readFileSync(READMES['packages/sdk/README.md'], 'utf8')).length).toBeGreaterThanOrEqual(4);
    expect(examplesOf(readFileSync(READMES['README.md'], 'utf8')).length).toBeGreaterThanOrEqual(1);
  });

  it(
    'type-check under tsc --strict against the built package (TypeScript 7, every declaration file they load)',
    () => {
      const files: string[] = [];
      for (const [name, file] of Object.entries(READMES)) {
        examplesOf(readFileSync(file, 'utf8')).forEach((program, i) => {
          const path = join(dir, `${name.replace(/\W/g, '_')}-${i + 1}.mts`);
          // `export {}` makes each file a module of its own, so top-level names do not collide.
          writeFileSync(path, `${program}\nexport {};\n`);
          files.push(path);
        });
      }
      const out = strictTypeErrors7(dir, files);
      expect(out).toBe('');
    },
    TYPE_CHECK_TIMEOUT_MS,
  );

  for (const [name, file] of Object.entries(READMES)) {
    const programs = examplesOf(readFileSync(file, 'utf8'));
    programs.forEach((program, i) => {
      it(`${name} example ${i + 1} runs against the real API`, () => {
        const source = program.replaceAll('http://127.0.0.1:3000', server.origin);
        const { outputText, diagnostics } = ts.transpileModule(source, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          reportDiagnostics: true,
        });
        expect(diagnostics ?? []).toEqual([]);
        const path = join(dir, `${name.replace(/\W/g, '_')}-${i + 1}.mjs`);
        writeFileSync(path, outputText);
        execFileSync(process.execPath, [path], { env: { PATH: process.env.PATH ?? '', TOKEN: token }, encoding: 'utf8', stdio: 'pipe' });
      });
    });
  }
});
