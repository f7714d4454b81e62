// Docs that stand alone (issue 45, section 4): what a reader of this repository (or of the SDK's
// tarball) is pointed at must be there. Pure functions over markdown text, plus the file walks the
// test runs them on; each returns a list of problems, one line each, empty when all is well.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Text that names a place outside the repository: the shared spec folder, its decisions page, a machine's own paths. */
const OUTSIDE = [
  { pattern: /\.\.\/shared\b/, what: '`../shared/...` is outside the repository' },
  { pattern: /platform-decisions/i, what: "the decisions page outside the repository (the repository's own is docs/decisions.md)" },
  { pattern: /(?:^|[\s`'"(<[])\/(?:work|home|root|Users)\/\S/, what: 'an absolute path of one machine' },
  { pattern: /\bfile:\/\/\//i, what: 'a file:// URL of one machine' },
];

/** The same text with fenced code blocks blanked (line numbers kept): a link in a code sample is no link. */
export function withoutFences(markdown) {
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** `(line, text)` of every place in `markdown` that names something outside the repository. */
export function outsideMentions(markdown) {
  const found = [];
  markdown.split('\n').forEach((line, i) => {
    for (const { pattern, what } of OUTSIDE) if (pattern.test(line)) found.push(`line ${i + 1}: ${what}: ${line.trim()}`);
  });
  return found;
}

/** Link targets of `markdown` (inline links and images, reference definitions), with their lines; code excluded. */
export function linkTargets(markdown) {
  const text = withoutFences(markdown).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
  const targets = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?/g)) targets.push({ line: i + 1, target: m[1] });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) targets.push({ line: i + 1, target: definition[1] });
  });
  return targets;
}

/** Whether a link target is a URL (http:, https:, mailto:, protocol-relative): not a file of ours. */
export const isUrl = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** GitHub's anchors of the headings of `markdown` (lower case, punctuation dropped, spaces to `-`, repeats numbered). */
export function headingAnchors(markdown) {
  const anchors = new Set();
  const seen = new Map();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/**
 * Problems with the relative links of `file` (its text `markdown`): each must name a file inside
 * `root` that exists, and an anchor into a markdown file must be one of its headings.
 */
export function brokenLinks(file, markdown, root = repoRoot) {
  const problems = [];
  for (const { line, target } of linkTargets(markdown)) {
    if (isUrl(target)) continue;
    const [pathPart, anchor] = target.split('#', 2);
    let relative;
    try {
      relative = decodeURIComponent(pathPart.split('?')[0]);
    } catch {
      problems.push(`line ${line}: link target '${target}' does not decode`);
      continue;
    }
    if (relative.startsWith('/')) {
      problems.push(`line ${line}: link '${target}' is an absolute path: link files of the repository relatively`);
      continue;
    }
    const resolved = relative === '' ? file : path.resolve(path.dirname(file), relative);
    if (!isInside(resolved, root)) {
      problems.push(`line ${line}: link '${target}' leads outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`line ${line}: link '${target}' names ${path.relative(root, resolved)}, which does not exist`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)) {
      problems.push(`line ${line}: link '${target}': ${path.relative(root, resolved)} has no heading with the anchor #${anchor}`);
    }
  }
  return problems;
}

/**
 * Markdown files named in code spans (`docs/oauth.md`, `metafields.md`) that exist nowhere a reader
 * would look: beside `file`, from the repository's root, or in `docs/`.
 */
export function missingNamedFiles(file, markdown, root = repoRoot) {
  const problems = [];
  markdown.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/`([^`\s]+\.md)`/g)) {
      const name = m[1];
      const places = [path.resolve(path.dirname(file), name), path.resolve(root, name), path.resolve(root, 'docs', name)];
      if (!places.some((p) => isInside(p, root) && existsSync(p))) {
        problems.push(`line ${i + 1}: names \`${name}\`, which is not a file of the repository`);
      }
    }
  });
  return problems;
}

/** The sections (`N`) and items (`N.M`) docs/decisions.md defines: `## N. Title` and `### N.M Title`. */
export function decisionSections(markdown) {
  const sections = new Set();
  for (const line of withoutFences(markdown).split('\n')) {
    const section = /^## (\d+)\. \S/.exec(line);
    if (section) sections.add(section[1]);
    const item = /^### (\d+)\.(\d+) \S/.exec(line);
    if (item) sections.add(`${item[1]}.${item[2]}`);
  }
  return sections;
}

/**
 * Every section cited as "decisions §N" or "decisions §N.M", with the ones that follow in the same
 * run ("decisions §3.1, §4", "decisions §8.1-§8.7", "§5.2 and §5.3").
 */
export function decisionCitations(text) {
  const cited = [];
  const run = /decisions[\s\u00a0]+(§[\s\u00a0]?\d+(?:\.\d+)?(?:[\s\u00a0]*(?:,|-|–|and|or|to)[\s\u00a0]*§[\s\u00a0]?\d+(?:\.\d+)?)*)/gi;
  for (const m of text.matchAll(run)) {
    const line = text.slice(0, m.index).split('\n').length;
    for (const ref of m[1].matchAll(/§[\s\u00a0]?(\d+(?:\.\d+)?)/g)) cited.push({ line, section: ref[1] });
  }
  return cited;
}

/** Citations in `text` of sections docs/decisions.md does not have. */
export function unresolvedCitations(text, sections) {
  return decisionCitations(text)
    .filter(({ section }) => !sections.has(section))
    .map(({ line, section }) => `line ${line}: cites decisions §${section}, which docs/decisions.md does not have`);
}

/**
 * A page that cites "decisions §N" must say once which file that is: a link to docs/decisions.md,
 * or the words `docs/decisions.md`.
 */
export function citesWithoutNamingDecisions(file, markdown, root = repoRoot) {
  const decisions = path.resolve(root, 'docs/decisions.md');
  if (path.resolve(file) === decisions || decisionCitations(markdown).length === 0) return [];
  const linked = linkTargets(markdown).some(
    ({ target }) => !isUrl(target) && path.resolve(path.dirname(file), target.split('#')[0]) === decisions,
  );
  if (linked || markdown.includes('docs/decisions.md')) return [];
  return ['cites "decisions §N" but never says that it means docs/decisions.md (link to it once)'];
}

/**
 * The SDK's README ships in its tarball, which holds only the package's `files`: it may link to and
 * name those alone, and cite no repository page (no docs/, no "decisions §").
 */
export function tarballReadmeProblems(packageDir, markdown) {
  const { files = [] } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  const shipped = (relative) => {
    const normal = path.posix.normalize(relative.replace(/^\.\//, ''));
    return files.some((f) => normal === f || normal.startsWith(`${f.replace(/\/$/, '')}/`));
  };
  const problems = [];
  for (const { line, target } of linkTargets(markdown)) {
    if (isUrl(target) || target.startsWith('#')) continue;
    const relative = target.split('#')[0].split('?')[0];
    if (!shipped(relative)) problems.push(`line ${line}: links '${target}', which is not in the package's files (${files.join(', ')})`);
  }
  markdown.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/`([^`\s]+\.md)`/g)) {
      if (!shipped(m[1])) problems.push(`line ${i + 1}: names \`${m[1]}\`, which is not in the tarball`);
    }
    for (const m of line.matchAll(/`((?:docs|apps|packages|tooling|scripts|bench|examples|deploy)\/[^`\s]*)`/g)) {
      problems.push(`line ${i + 1}: names \`${m[1]}\`, a file of the repository the tarball does not hold`);
    }
    if (/decisions[\s\u00a0]+§/i.test(line))
      problems.push(`line ${i + 1}: cites "decisions §", a page of the repository the tarball does not hold`);
  });
  return problems;
}

/** Whether `file` lies inside `root`. */
export function isInside(file, root) {
  const relative = path.relative(root, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

const SKIP_DIRS = new Set(['node_modules', 'dist', '.turbo', 'generated', 'data', '.cache', 'coverage', '.git']);
const TEXT_FILES = /\.(?:[cm]?[jt]sx?|md|prisma|sql|sh|ya?ml|cfg|json)$/;

/** Every text file under `dir` (generated, installed and built folders skipped), absolute paths. */
export function textFiles(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const entry of readdirSync(dir)) {
    if (SKIP_DIRS.has(entry)) continue;
    const full = path.join(dir, entry);
    const stat = statSync(full);
    if (stat.isDirectory()) found.push(...textFiles(full));
    else if (TEXT_FILES.test(entry)) found.push(full);
  }
  return found;
}

/** The repository's user-facing pages besides the two READMEs: docs/*.md and the READMEs of packages, apps and tooling. */
export function docsPages(root = repoRoot) {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(root, 'docs', f));
  const readmes = ['apps', 'packages', 'tooling', 'examples']
    .flatMap((dir) => textFiles(path.join(root, dir)))
    .filter((f) => path.basename(f) === 'README.md' && path.relative(root, f) !== 'packages/sdk/README.md');
  return [...docs, ...readmes].sort();
}
