#!/usr/bin/env node
// `tsc7`: TypeScript 7's compiler (native, several times faster than 5.9's) for every build and type
// check of the workspace. TypeScript 5.9 stays where a tool needs the compiler's JavaScript API, which
// 7 does not have: typescript-eslint, tsup's roll-up of declarations, openapi-typescript and the SDK's checks of
// an app team's code (docs/engineering.md, "Build and module format").
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The package's own entry (lib/tsc.js): it runs the platform's binary with these arguments and
// exits with its status. Its `exports` do not name it, hence the path.
const manifest = createRequire(import.meta.url).resolve('typescript/package.json');
await import(pathToFileURL(join(dirname(manifest), 'lib', 'tsc.js')).href);
