import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument } from './openapi';

/*
 * decisions §12.9: the served document passes Redocly's linter (the engine of Redocly's CLI,
 * `redocly lint`) at its recommended rules with no error. Warnings are printed, not failed on.
 */
describe('the OpenAPI document under Redocly lint (recommended)', () => {
  it('has no error', async () => {
    // ESM only: loaded as Node loads it, not through the CommonJS build of this test.
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(generateOpenApiDocument()), absoluteRef: 'openapi.json', config });
    const describe = (p: (typeof problems)[number]) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`;
    const warnings = problems.filter((p) => p.severity !== 'error');
    if (warnings.length > 0) console.warn(`Redocly lint: ${warnings.length} warnings\n${warnings.slice(0, 20).map(describe).join('\n')}`);
    expect(problems.filter((p) => p.severity === 'error').map(describe)).toEqual([]);
  }, 60_000);
});
