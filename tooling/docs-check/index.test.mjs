// Docs that stand alone (issue 45, section 4): the README, the SDK's README (in its tarball) and the
// pages of docs/ point only at what a clone, or the tarball, holds, and every "decisions §N.M" of
// the repository names a section docs/decisions.md has. `node --test`, run by `pnpm test`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  brokenLinks,
  citesWithoutNamingDecisions,
  decisionCitations,
  decisionSections,
  docsPages,
  headingAnchors,
  missingNamedFiles,
  outsideMentions,
  repoRoot,
  tarballReadmeProblems,
  textFiles,
  unresolvedCitations,
} from './index.mjs';

const read = (relative) => readFileSync(path.join(repoRoot, relative), 'utf8');
const sections = decisionSections(read('docs/decisions.md'));

describe('the README stands alone in a clone', () => {
  const file = path.join(repoRoot, 'README.md');
  const markdown = read('README.md');

  it('names no place outside the repository', () => {
    assert.deepEqual(outsideMentions(markdown), []);
  });

  it('links and names only files that exist', () => {
    assert.deepEqual([...brokenLinks(file, markdown), ...missingNamedFiles(file, markdown)], []);
  });

  it('cites decisions only by sections of docs/decisions.md, and says that file is meant', () => {
    assert.deepEqual([...unresolvedCitations(markdown, sections), ...citesWithoutNamingDecisions(file, markdown)], []);
  });
});

describe("the SDK's README stands alone in the tarball", () => {
  const dir = path.join(repoRoot, 'packages/sdk');
  const markdown = read('packages/sdk/README.md');

  it('names no place outside the repository', () => {
    assert.deepEqual(outsideMentions(markdown), []);
  });

  it("links and names only the package's files, and cites no page of the repository", () => {
    assert.deepEqual(tarballReadmeProblems(dir, markdown), []);
  });

  it('has no relative link to a file that does not exist', () => {
    assert.deepEqual(brokenLinks(path.join(dir, 'README.md'), markdown), []);
  });
});

describe('the pages of docs/ and the READMEs of the packages', () => {
  const pages = docsPages();

  it('are found', () => {
    assert.ok(pages.includes(path.join(repoRoot, 'docs/decisions.md')));
    assert.ok(pages.includes(path.join(repoRoot, 'packages/domain/src/metafields/README.md')));
  });

  for (const file of pages) {
    const relative = path.relative(repoRoot, file);
    it(`${relative}: no outside place, no broken link, no decisions section that does not exist`, () => {
      const markdown = readFileSync(file, 'utf8');
      assert.deepEqual(
        [
          ...outsideMentions(markdown),
          ...brokenLinks(file, markdown),
          ...missingNamedFiles(file, markdown),
          ...unresolvedCitations(markdown, sections),
          ...citesWithoutNamingDecisions(file, markdown),
        ],
        [],
      );
    });
  }
});

describe('docs/decisions.md', () => {
  it('has the sections and numbered items the code cites, in order', () => {
    // The platform's sections and how many numbered items each has (§4 and §10 have none).
    const items = { 1: 5, 2: 6, 3: 6, 4: 0, 5: 6, 6: 5, 7: 4, 8: 14, 9: 6, 10: 0, 11: 7, 12: 9 };
    const expected = Object.entries(items).flatMap(([n, count]) => [n, ...Array.from({ length: count }, (_, i) => `${n}.${i + 1}`)]);
    assert.deepEqual([...sections], expected);
  });

  it('says how it is cited', () => {
    assert.match(read('docs/decisions.md').split('\n## ')[0], /"decisions §N\.M"/);
  });

  it('resolves every "decisions §N.M" of the code, the tests and the docs', () => {
    const dirs = ['apps', 'packages', 'tooling', 'docs', 'examples', 'bench', 'scripts', 'deploy'];
    const files = [path.join(repoRoot, 'README.md'), ...dirs.flatMap((dir) => textFiles(path.join(repoRoot, dir)))];
    let citations = 0;
    const unresolved = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      citations += decisionCitations(text).length;
      unresolved.push(...unresolvedCitations(text, sections).map((problem) => `${path.relative(repoRoot, file)} ${problem}`));
    }
    assert.ok(citations > 500, `only ${citations} citations found: is the walk still reading the sources?`);
    assert.deepEqual(unresolved, []);
  });
});

describe('the checks themselves', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'docs-check-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const write = (relative, text) => {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), text);
  };
  write('docs/decisions.md', '# D\n\n## 6. Pagination\n\n### 6.2 The cursor, `page_info`\n\ntext\n\n### Our choices: Pagination\n');
  write('packages/sdk/package.json', JSON.stringify({ files: ['dist', 'README.md', 'CHANGELOG.md'] }));
  write('packages/sdk/CHANGELOG.md', '# Changes\n');

  it('find outside places, but not API paths', () => {
    const text = [
      'where it is silent, `../shared/spec/platform-decisions.md` decides',
      'see /work/main/docs',
      'GET /admin/openapi/v20260901/products.json and /platform/v1/clock',
    ].join('\n');
    assert.deepEqual(
      outsideMentions(text).map((p) => p.split(':')[0]),
      ['line 1', 'line 1', 'line 2'],
    );
  });

  it('find links to missing files, to outside the repository and to missing headings', () => {
    const file = path.join(root, 'README.md');
    const text = [
      '[ok](docs/decisions.md#62-the-cursor-page_info) [ok too](docs/decisions.md#our-choices-pagination)',
      '[gone](docs/missing.md) [out](../shared/spec/x.md) [abs](/work/main/docs/decisions.md)',
      '[bad anchor](docs/decisions.md#6-pagination-x) [web](https://example.com/x.md)',
      '```',
      '[in a code sample](nowhere.md)',
      '```',
      '`[in code](nowhere.md)`',
    ].join('\n');
    assert.deepEqual(
      brokenLinks(file, text, root).map((p) => p.split(':')[0]),
      ['line 2', 'line 2', 'line 2', 'line 3'],
    );
  });

  it('compute the anchors GitHub gives headings', () => {
    assert.deepEqual(
      [...headingAnchors('## 6. Pagination\n### 6.2 The cursor, `page_info`\n### Our choices: Clock\n### Our choices: Clock\n')],
      ['6-pagination', '62-the-cursor-page_info', 'our-choices-clock', 'our-choices-clock-1'],
    );
  });

  it('find named markdown files that are nowhere', () => {
    const text = 'see `decisions.md`, `docs/decisions.md`, and `../shared/spec/admin-rest-api.md`';
    assert.deepEqual(missingNamedFiles(path.join(root, 'README.md'), text, root).length, 1);
  });

  it('read runs of citations, and find the ones docs/decisions.md lacks', () => {
    assert.deepEqual(
      decisionCitations('(decisions §3.1, §4) and Decisions §8.1-§8.7; decisions §6.2 or §6').map((c) => c.section),
      ['3.1', '4', '8.1', '8.7', '6.2', '6'],
    );
    const known = decisionSections(readFileSync(path.join(root, 'docs/decisions.md'), 'utf8'));
    assert.deepEqual([...known], ['6', '6.2']);
    assert.deepEqual(unresolvedCitations('decisions §6.2, §6.3\n// decisions §7', known), [
      'line 1: cites decisions §6.3, which docs/decisions.md does not have',
      'line 2: cites decisions §7, which docs/decisions.md does not have',
    ]);
  });

  it('want a page citing decisions to say which file it means', () => {
    const file = path.join(root, 'docs/page.md');
    assert.equal(citesWithoutNamingDecisions(file, 'as decisions §6.2 says', root).length, 1);
    assert.deepEqual(citesWithoutNamingDecisions(file, 'Sections are [those](decisions.md). As decisions §6.2 says', root), []);
    assert.deepEqual(citesWithoutNamingDecisions(path.join(root, 'README.md'), 'see docs/decisions.md; decisions §6.2', root), []);
  });

  it("keep the SDK's README to the tarball's files", () => {
    const text = [
      '[changes](CHANGELOG.md) [api](dist/index.d.ts) [docs](https://example.com/docs)',
      '[repo page](../../docs/sdk.md)',
      'see `docs/idempotency.md` and `packages/sdk/src/client.ts`',
      'as decisions §6.2 says',
    ].join('\n');
    assert.deepEqual(
      tarballReadmeProblems(path.join(root, 'packages/sdk'), text).map((p) => p.split(':')[0]),
      ['line 2', 'line 3', 'line 3', 'line 3', 'line 4'],
    );
  });
});
