// `pnpm lint`, after ESLint: the import graph of every package's sources and of the test folders ESLint reads (type-only imports counted)
// has no cycle, and apps/api/src's imports point only down or sideways through the floors that
// docs/architecture.md lists (floors.mjs). One line per broken rule, exit code 1.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkArchitecture, readFloors } from './floors.mjs';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const floors = readFloors(readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8'));
const sources = [
  'packages/contract/src',
  'packages/db/src',
  'packages/domain/src',
  'packages/sdk/src',
  'apps/api/src',
  'apps/webhooks/src',
  // the test folders ESLint reads (eslint.config.mjs leaves cycles to this check)
  'packages/sdk/test',
  'apps/webhooks/test',
];
const problems = await checkArchitecture({ cwd: repository, sources, root: 'apps/api/src', floors });
for (const line of problems) console.error(line);
if (problems.length > 0) {
  console.error(`\n${problems.length} import rule(s) broken (docs/architecture.md, "Floors"; tooling/eslint/floors.mjs)`);
  process.exit(1);
}
console.log(`imports: no cycle, every floor of apps/api/src respected (${floors.length} floors)`);
