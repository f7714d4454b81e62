/*
 * What `tsc <args> <files>` run in `cwd` prints about the files themselves and about the declaration
 * files under `declarations`: '' when they type-check.
 *
 * Same compiler, same options (parsed from the same command line), same program; only the set of
 * files whose types are checked is named. tsc without --skipLibCheck checks every declaration file
 * the program loads (all of @types/node, zod, undici ...): on a 2-core machine under the test
 * suite's load that took 56-70 s a run and timed the pack test out (2026-11-26), for errors in
 * files that are not ours. Here the SDK's own declarations are checked as strictly as before, and
 * the check refuses to pass when it loaded none of them (a path that no longer matches would
 * otherwise check nothing).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve, sep } from 'node:path';
import ts from 'typescript';

export function typeErrors(cwd: string, files: string[], args: string[], declarations: string[] = []): string {
  const parsed = ts.parseCommandLine([...args, ...files]);
  const formatHost: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => cwd,
    getNewLine: () => '\n',
  };
  if (parsed.errors.length > 0) return ts.formatDiagnostics(parsed.errors, formatHost);
  const host = ts.createCompilerHost(parsed.options);
  host.getCurrentDirectory = () => cwd;
  const roots = parsed.fileNames.map((f) => resolve(cwd, f));
  const program = ts.createProgram({ rootNames: roots, options: parsed.options, host });
  const rootSet = new Set(roots);
  const dirs = declarations.map((d) => resolve(cwd, d) + sep);
  const declared = (f: ts.SourceFile) => f.isDeclarationFile && dirs.some((d) => f.fileName.startsWith(d));
  const checked = program.getSourceFiles().filter((f) => rootSet.has(f.fileName) || declared(f));
  const unloaded = dirs.filter((d) => !checked.some((f) => f.isDeclarationFile && f.fileName.startsWith(d)));
  if (unloaded.length > 0) return `no declaration file under ${unloaded.join(', ')} was loaded\n`;
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...checked.flatMap((f) => program.getSemanticDiagnostics(f)),
  ];
  return ts.formatDiagnostics(diagnostics, formatHost);
}

/**
 * A whole-program check of the SDK's declarations (about 30,000 lines each for ESM and CommonJS) is
 * 10 s of CPU alone and took 50-70 s beside the rest of the suite on a 2-core machine: its tests get
 * this long rather than the suite's 60 s (a bound on a hang, not a timed assertion).
 */
export const TYPE_CHECK_TIMEOUT_MS = 240_000;

const TSC7 = createRequire(__filename).resolve('@platform/tsconfig/bin/tsc7.mjs');

/**
 * What TypeScript 7's `tsc <args> <files>` (the workspace's compiler for every build and check) prints
 * when run in `cwd`, over the whole program: the files, and every declaration file they load (the
 * SDK's, zod's, @types/node's ...): '' when they type-check. TypeScript 7 is native and checks all of
 * it in about 4 s of CPU, where 5.9 took 10 s to check only the files and the SDK's declarations
 * (typeErrors above, which the pack test keeps: it checks with the compiler an app team has today).
 */
export function typeErrors7(cwd: string, files: string[], args: string[]): string {
  const run = spawnSync(process.execPath, [TSC7, ...args, '--ignoreConfig', '--pretty', 'false', ...files], { cwd, encoding: 'utf8' });
  const out = `${run.stdout}${run.stderr}`;
  if (run.status !== 0 && out.trim() === '') return `tsc7 exited with ${run.status ?? run.signal} and printed nothing\n`;
  return out;
}
