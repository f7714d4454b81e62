import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// What the declarations promise as values must exist at run time: an import that compiles and is
// undefined when the app runs (`ZShop`, `contract`) is the worst kind of SDK bug. Read from the built
// package, as an app gets it: every entry's .d.ts against its .cjs, and its .d.mts against its .mjs.
const dist = join(__dirname, '..', 'dist');
const require = createRequire(__filename);

/** The value names of a rolled-up declaration file's `export { ... }` lists (`type X` left out; `X as Y` is Y). */
function declaredValues(file: string): string[] {
  const text = readFileSync(join(dist, file), 'utf8');
  const names: string[] = [];
  for (const match of text.matchAll(/^export \{([^}]*)\};?$/gm)) {
    for (const part of match[1]!.split(',')) {
      const item = part.trim();
      if (item === '' || item.startsWith('type ')) continue;
      names.push(item.split(/\s+as\s+/).pop()!);
    }
  }
  return names.sort();
}

const entries = readdirSync(dist)
  .filter((f) => f.endsWith('.cjs'))
  .map((f) => f.slice(0, -'.cjs'.length));

describe('the built package exports at run time every value its declarations name', () => {
  it('finds the entries', () => {
    expect(entries).toEqual(
      expect.arrayContaining(['index', 'express', 'fastify', 'nestjs', 'sqlite', 'token-store-pg', 'token-store-redis']),
    );
  });

  for (const entry of entries) {
    it(`${entry}: CommonJS (.d.ts) and ESM (.d.mts)`, async () => {
      const cjs = Object.keys(require(join(dist, `${entry}.cjs`)) as object);
      const esm = Object.keys((await import(pathToFileURL(join(dist, `${entry}.mjs`)).href)) as object);
      const missingCjs = declaredValues(`${entry}.d.ts`).filter((name) => !cjs.includes(name));
      const missingEsm = declaredValues(`${entry}.d.mts`).filter((name) => !esm.includes(name));
      expect({ missingCjs, missingEsm }).toEqual({ missingCjs: [], missingEsm: [] });
      // The main entry's declarations do list values (the parser found the export list).
      if (entry === 'index') expect(declaredValues('index.d.ts')).toEqual(expect.arrayContaining(['createClient', 'verifyWebhook']));
    });
  }

  it('index: every type the contract exports is exported as a type (the list in src/index.ts keeps up with the contract)', () => {
    const contractDir = join(__dirname, '..', '..', 'contract', 'src');
    const contractTypes = readdirSync(contractDir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .flatMap((f) =>
        [...readFileSync(join(contractDir, f), 'utf8').matchAll(/^export (?:type|interface) ([A-Za-z0-9_]+)/gm)].map((m) => m[1]!),
      );
    const declared = readFileSync(join(dist, 'index.d.ts'), 'utf8');
    const exportedTypes = new Set(
      [...declared.matchAll(/^export \{([^}]*)\};?$/gm)].flatMap((m) =>
        m[1]!.split(',').map((part) =>
          part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)
            .pop()!,
        ),
      ),
    );
    expect(contractTypes.length).toBeGreaterThan(50);
    expect(contractTypes.filter((name) => !exportedTypes.has(name))).toEqual([]);
  });
});
