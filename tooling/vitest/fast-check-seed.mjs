// Property tests are reproducible: every fast-check property of a run uses one seed, FC_SEED when
// set (an integer, or `random` to explore new inputs), else a fixed one, so a landing never depends
// on luck. fast-check prints the seed and the counterexample of a failure; rerun with FC_SEED=<seed>.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const DEFAULT_FC_SEED = 20261125;

let manifest;
try {
  // fast-check as the package under test resolves it.
  manifest = createRequire(join(process.cwd(), 'package.json')).resolve('fast-check/package.json');
} catch {
  manifest = undefined;
}
if (manifest) {
  const raw = process.env.FC_SEED;
  const seed = raw === 'random' ? Date.now() ^ (Math.random() * 0x100000000) : raw ? Number(raw) : DEFAULT_FC_SEED;
  if (!Number.isInteger(seed)) throw new Error(`FC_SEED must be an integer or "random" (got '${raw}')`);
  // The package ships an ESM and a CommonJS build, each with its own global settings: a test may
  // load either, so both are set.
  const { exports } = createRequire(manifest)(manifest);
  for (const entry of [exports['.'].import.default, exports['.'].require.default]) {
    const fc = await import(pathToFileURL(join(dirname(manifest), entry)).href);
    (fc.configureGlobal ?? fc.default.configureGlobal)({ seed });
  }
  if (raw === 'random') console.log(`fast-check seed for this run: FC_SEED=${seed}`);
}
