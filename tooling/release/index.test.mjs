// The platform's version is said the same everywhere (decisions §12.8: "a version of its own
// (semver, a changelog a platform team reads before upgrading)"), and each release recorded in
// deploy/releases.json is what its commit holds.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import {
  changelogVersions,
  compareVersions,
  dockerfileVersions,
  migrationNames,
  platformVersion,
  previousRelease,
  PROVIDERS,
  releases,
  ROOT,
} from './index.mjs';

const git = (...args) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const hasCommit = (commit) => {
  try {
    return git('cat-file', '-t', commit) === 'commit';
  } catch {
    return false;
  }
};

describe('the platform version', () => {
  it('is x.y.z, above every recorded release, and the image label of the Dockerfile', () => {
    const version = platformVersion();
    assert.match(version, /^\d+\.\d+\.\d+$/);
    for (const r of releases()) assert.ok(compareVersions(version, r.version) >= 0, `${version} is below release ${r.version}`);
    assert.deepEqual(dockerfileVersions(), [version, version], 'ARG PLATFORM_VERSION= in both stages of the Dockerfile');
  });

  it('has the first section of CHANGELOG.md, and every release has one', () => {
    const sections = changelogVersions();
    assert.equal(sections[0], platformVersion());
    for (const r of releases()) assert.ok(sections.includes(r.version), `CHANGELOG.md has no section for ${r.version}`);
    assert.deepEqual(
      [...sections].sort((a, b) => compareVersions(b, a)),
      sections,
      'sections newest first',
    );
  });

  it('upgrades from the newest release below it', () => {
    const previous = previousRelease();
    assert.ok(compareVersions(previous.version, platformVersion()) < 0);
  });
});

describe('deploy/releases.json', () => {
  for (const r of releases()) {
    it(`${r.version}: its last migration is one of this tree's, on both databases`, () => {
      assert.equal(r.tag, `v${r.version}`);
      assert.match(r.commit, /^[0-9a-f]{40}$/);
      for (const provider of PROVIDERS) assert.ok(migrationNames(provider).includes(r.lastMigration), `${provider}: ${r.lastMigration}`);
    });

    it(`${r.version}: is what its commit holds (its tag, when there is one, names the commit)`, (t) => {
      if (!hasCommit(r.commit)) {
        // A shallow clone or an archive: nothing to compare with.
        t.skip(`commit ${r.commit} is not in this clone`);
        return;
      }
      const migrations = git('ls-tree', '--name-only', `${r.commit}:packages/db/prisma/postgresql/migrations`)
        .split('\n')
        .filter((name) => /^\d{14}_/.test(name))
        .sort();
      assert.equal(migrations.at(-1), r.lastMigration);
      let tagged;
      try {
        tagged = git('rev-parse', `${r.tag}^{commit}`);
      } catch {
        tagged = undefined;
      }
      if (tagged !== undefined) assert.equal(tagged, r.commit, `${r.tag} names another commit`);
    });
  }
});
