// The platform's releases (decisions §12.8; docs/production.md, "Versions and upgrades"): the
// version of this tree (the root package.json), the releases made before it (deploy/releases.json:
// version, tag, commit, last migration), and the rule every migration after the last release keeps:
// the previous release's code must keep working on the migrated schema (expand now, contract one
// release later). Used by scripts/release.sh (`node tooling/release/index.mjs <command>`) and by
// this package's tests.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROVIDERS = ['postgresql', 'sqlite'];

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

/** -1, 0 or 1 as semantic versions (x.y.z only: the platform has no pre-releases). */
export function compareVersions(a, b) {
  const pa = SEMVER.exec(a);
  const pb = SEMVER.exec(b);
  if (!pa || !pb) throw new Error(`not a version x.y.z: ${pa ? b : a}`);
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The version of this tree. */
export function platformVersion(root = ROOT) {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
}

/** The releases made so far, oldest first. */
export function releases(root = ROOT) {
  const list = JSON.parse(readFileSync(join(root, 'deploy', 'releases.json'), 'utf8')).releases;
  return [...list].sort((a, b) => compareVersions(a.version, b.version));
}

/** The release this tree upgrades from: the newest one below its version. */
export function previousRelease(root = ROOT) {
  const version = platformVersion(root);
  const below = releases(root).filter((r) => compareVersions(r.version, version) < 0);
  if (below.length === 0) throw new Error(`no release below ${version} in deploy/releases.json`);
  return below[below.length - 1];
}

/** The defaults of `ARG PLATFORM_VERSION=` in the root Dockerfile (one per stage). */
export function dockerfileVersions(root = ROOT) {
  return [...readFileSync(join(root, 'Dockerfile'), 'utf8').matchAll(/^ARG PLATFORM_VERSION=(\S+)$/gm)].map((m) => m[1]);
}

/** The versions CHANGELOG.md has a section for (`## 1.2.0 ...`), newest first as written. */
export function changelogVersions(root = ROOT) {
  return [...readFileSync(join(root, 'CHANGELOG.md'), 'utf8').matchAll(/^## (\d+\.\d+\.\d+)\b/gm)].map((m) => m[1]);
}

export function migrationsDir(provider, root = ROOT) {
  return join(root, 'packages', 'db', 'prisma', provider, 'migrations');
}

/** A provider's migration folders, in the order they apply. */
export function migrationNames(provider, root = ROOT) {
  const dir = migrationsDir(provider, root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** The migrations after the newest release's last one: those the previous release must survive. */
export function unreleasedMigrations(provider, root = ROOT) {
  const last = previousRelease(root).lastMigration;
  return migrationNames(provider, root).filter((name) => name > last);
}

export function migrationSql(provider, name, root = ROOT) {
  return readFileSync(join(migrationsDir(provider, root), name, 'migration.sql'), 'utf8');
}

/**
 * A migration that is not additive says why the previous release still works, on a line of its own:
 * `-- compatible: <why>` (a contraction: "drops orders.legacy_note, unused since 1.3.0"; SQLite's
 * rebuild of a table to make a column optional: "the same columns, one of them now optional").
 */
const COMPATIBLE = /^--[ \t]*compatible:[ \t]*\S.{9,}$/m;

const name = String.raw`(?:"([^"]+)"|(\w+))`;
const tableOf = (m, i) => m[i] ?? m[i + 1];

/**
 * What in `sql` would break the code of the release before it while both run on one database (a
 * rolling upgrade, or a rollback to that release), each as a sentence. Empty when the migration only
 * adds (tables, nullable or defaulted columns, indexes, constraints on its own new tables) or carries
 * a `-- compatible:` line. Statements inside DO bodies are checked too (their `\003B` separators).
 */
export function migrationProblems(sql) {
  if (COMPATIBLE.test(sql)) return [];
  const code = sql.replace(/--[^\n]*/g, ' ');
  const created = new Set(
    [...code.matchAll(new RegExp(String.raw`CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?${name}`, 'gi'))].map((m) => tableOf(m, 1)),
  );
  // A SQLite trigger's body is `BEGIN <statements>; END;`: its statements are checked like the
  // others, and its END closes the body, not a transaction.
  const statements = code
    .replace(/(\bCREATE\s+(?:TEMP(?:ORARY)?\s+)?TRIGGER\b[^;]*?\bBEGIN\b)([\s\S]*?)\bEND\s*;/gi, '$1 $2')
    .split(/;|\\003B/i)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const problems = [];
  const altered = (statement) => {
    const m = new RegExp(String.raw`ALTER\s+TABLE\s+(?:ONLY\s+)?(?:IF\s+EXISTS\s+)?${name}`, 'i').exec(statement);
    return m ? tableOf(m, 1) : undefined;
  };
  for (const statement of statements) {
    const table = altered(statement);
    const onOldTable = table !== undefined && !created.has(table);
    const say = (what) => problems.push(`${what}: ${statement.slice(0, 160)}`);
    const dropped = new RegExp(String.raw`\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?${name}`, 'i').exec(statement);
    if (dropped && !created.has(tableOf(dropped, 1))) say('drops a table the previous release uses');
    if (/\bDROP\s+COLUMN\b/i.test(statement)) say('drops a column the previous release may read or write');
    if (/\bRENAME\b/i.test(statement)) say('renames what the previous release names');
    if (/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i.test(statement)) say("changes a column's type");
    if (/\bALTER\s+COLUMN\s+\S+\s+SET\s+NOT\s+NULL\b/i.test(statement))
      say('makes a column required that the previous release may leave empty');
    if (onOldTable && /\bADD\s+(COLUMN\s+)?\S+\s+[^,]*\bNOT\s+NULL\b/i.test(statement) && !/\bDEFAULT\b/i.test(statement)) {
      say("adds a required column without a default: the previous release's inserts leave it empty");
    }
    if (onOldTable && /\bADD\s+(CONSTRAINT\s+\S+\s+)?(CHECK|UNIQUE|FOREIGN\s+KEY|PRIMARY\s+KEY|EXCLUDE)\b/i.test(statement)) {
      say("adds a constraint the previous release's writes may break");
    }
    const unique = new RegExp(String.raw`\bCREATE\s+UNIQUE\s+INDEX\b.*\bON\s+(?:ONLY\s+)?${name}`, 'i').exec(statement);
    if (unique && !created.has(tableOf(unique, 1))) say("adds a unique index the previous release's writes may break");
    // Prisma names a unique index <table>_<columns>_key: an upsert of the previous release may need
    // it (ON CONFLICT). Any other index costs only speed when dropped.
    if (/\bDROP\s+INDEX\s+(IF\s+EXISTS\s+)?"?[\w.]*_(key|pkey)\b/i.test(statement)) {
      say("drops a unique index the previous release's upserts may need");
    }
    if (/\bDROP\s+(FUNCTION|TRIGGER|VIEW|MATERIALIZED\s+VIEW|TYPE|SEQUENCE|SCHEMA)\b/i.test(statement))
      say('drops what the previous release may use');
    if (/\bCONCURRENTLY\b/i.test(statement)) say('cannot run inside the transaction each migration runs in (CONCURRENTLY)');
    if (/^(COMMIT|ROLLBACK|END|START\s+TRANSACTION|BEGIN(\s+(TRANSACTION|WORK))?)$/i.test(statement)) {
      say('ends or starts a transaction: each migration already is one');
    }
  }
  return problems;
}

// `node tooling/release/index.mjs <command>` for scripts/release.sh.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, arg] = process.argv.slice(2);
  const find = (version) => releases().find((r) => r.version === version.replace(/^v/, ''));
  switch (command) {
    case 'version':
      console.log(platformVersion());
      break;
    case 'previous':
      console.log(previousRelease().version);
      break;
    case 'commit': {
      // a release's commit (x.y.z or vx.y.z), nothing for anything else
      const release = arg ? find(arg) : undefined;
      if (release) console.log(release.commit);
      break;
    }
    default:
      console.error('usage: node tooling/release/index.mjs version|previous|commit <version>');
      process.exit(2);
  }
}
