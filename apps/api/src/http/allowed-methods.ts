import { contract } from '@platform/contract';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

/** A contract path (`/stores/:handle/apps/:appId`) as a regular expression over a request path. */
function patternOf(path: string): RegExp {
  const source = path
    .split(/(:[A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => (part.startsWith(':') ? '[^/]+?' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * The OAuth API's pages (decisions §5.2), which the contract does not describe (they answer HTML):
 * the consent page on the store's host (GET shows it, POST is its Approve or Decline), and the
 * fragment page apps of this platform family link to (oauth/oauth-pages.controller.ts routes them).
 */
const OAUTH_PAGES: readonly { method: string; path: string }[] = [
  { method: 'GET', path: '/admin/oauth/authorize' },
  { method: 'POST', path: '/admin/oauth/authorize' },
  { method: 'GET', path: '/admin/oauth-web' },
  { method: 'GET', path: '/admin/oauth-web/' },
];

/**
 * The paths of the three APIs (Admin, operator, OAuth: its token calls and its pages) with the
 * methods each takes, read from the contract and OAUTH_PAGES: the router knows the same routes, so a
 * path this finds is one it routes.
 */
function knownPaths(): KnownPath[] {
  const byPath = new Map<string, KnownPath>();
  const routes = [...Object.values(contract.admin), ...Object.values(contract.operator), ...Object.values(contract.oauth), ...OAUTH_PAGES];
  for (const route of routes as { method: string; path: string }[]) {
    const known = byPath.get(route.path) ?? { pattern: patternOf(route.path), methods: new Set<string>() };
    known.methods.add(route.method);
    // Fastify answers HEAD on every GET route (its automatic twin).
    if (route.method === 'GET') known.methods.add('HEAD');
    byPath.set(route.path, known);
  }
  return [...byPath.values()];
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
let paths: KnownPath[] | undefined;

/**
 * decisions §4: a known path with a method it does not take is 405 with `Allow` listing those it
 * takes. The methods `path` takes (`omit` leaves out one the deployment does not serve, such as
 * `POST /platform/v1/clock` without the manual clock), or undefined when no route has that path.
 */
export function allowedMethods(path: string, omit?: (method: string, path: string) => boolean): string[] | undefined {
  paths ??= knownPaths();
  const methods = new Set<string>();
  let known = false;
  for (const candidate of paths) {
    if (!candidate.pattern.test(path)) continue;
    known = true;
    for (const method of candidate.methods) if (!omit?.(method, path)) methods.add(method);
  }
  if (!known) return undefined;
  return ORDER.filter((method) => methods.has(method));
}
