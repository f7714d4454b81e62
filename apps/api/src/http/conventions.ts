import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findDuplicateKey, resolveVersion, type Clock } from '@platform/domain';
import { withTraceId } from '@platform/db';
import type { AdminAccess } from './admin-access';
import { isOperatorToken } from './bearer';
import { BodyGates, capStream, declaresBody, tooLarge } from './body-gates';
import { allowedMethods } from './allowed-methods';
import { checkJsonShape } from './json-shape';
import { toErrorResponse } from './errors.filter';
import type { HttpMetrics } from './metrics';

import { ADMIN_PREFIX, BODY_TOO_LARGE, JSON_CONTENT_TYPE, MAX_BODY_BYTES, MAX_RESPONSE_BYTES, OPERATOR_PREFIX } from './wire';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function badRequest(message: string): Error & { statusCode: number; code: string } {
  return Object.assign(new Error(message), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
}

/**
 * decisions §3.1: a body must be JSON in UTF-8; an empty body is accepted whatever its type.
 * One parser for every content type, so a wrong type is our 400, not Fastify's 415. Bytes that are
 * not UTF-8, and strings that are not Unicode (unpaired surrogate escapes), are refused rather than
 * stored with replacement characters: nothing is silently rewritten.
 */
function installBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    const contentType = request.headers['content-type'];
    if (!isJsonUtf8(contentType)) {
      return done(badRequest(`Content-Type must be application/json; charset=utf-8 (got '${contentType ?? ''}')`));
    }
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return done(badRequest('Malformed JSON body: the bytes are not valid UTF-8'));
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return done(badRequest(`Malformed JSON body: ${(error as Error).message}`));
    }
    const problem = checkJsonShape(value);
    if (problem) return done(badRequest(`Malformed JSON body: ${problem}`));
    const duplicate = findDuplicateKey(text);
    if (duplicate !== undefined) {
      const shown = duplicate.length > 100 ? `${duplicate.slice(0, 100)}…` : duplicate;
      return done(badRequest(`Malformed JSON body: the key '${shown}' appears twice in one object`));
    }
    done(null, value);
  });
}

export function isJsonUtf8(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type = '', ...params] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.trim().toLowerCase() === 'charset') {
      const charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
      if (charset !== 'utf-8' && charset !== 'utf8') return false;
    }
  }
  return true;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The path with percent-escapes of unreserved characters decoded (RFC 3986 §6.2.2.2: `%61dmin` is
 * `admin`) and the other escapes left as they are. The router decodes them before matching, so every
 * check on the URL (which API, which version, which token) must see the same path the router routes.
 */
export function canonicalUrl(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.includes('%')) return url;
  const canonical = path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  return query === -1 ? canonical : canonical + url.slice(query);
}

/** Query parameters that carry a secret (a one-time sign-in link's token, an OAuth code). */
const SECRET_PARAMS = /([?&](?:token|code)=)[^&#]*/gi;

/** The URL as a log line may hold it: secrets in the query replaced by `***`. */
export function redactQuerySecrets(url: string): string {
  return url.includes('?') ? url.replace(SECRET_PARAMS, '$1***') : url;
}

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', JSON_CONTENT_TYPE)
    .send(JSON.stringify({ errors: message }));
}

const CLOCK_PATH = `${OPERATOR_PREFIX}v1/clock`;

/**
 * decisions §4: an unrouted request on a path one of the three APIs knows with other methods is
 * 405 with `Allow`; any other unrouted request is 404.
 */
function notRouted(reply: FastifyReply, path: string, clockMode: 'system' | 'manual'): FastifyReply {
  // decisions §10: without the manual clock, POST /platform/v1/clock does not exist.
  const allow = allowedMethods(path, (method, p) => clockMode !== 'manual' && method === 'POST' && p === CLOCK_PATH);
  if (allow === undefined || allow.length === 0) return sendError(reply, 404, 'Not Found');
  return sendError(reply.header('allow', allow.join(', ')), 405, `Method Not Allowed: this path takes ${allow.join(', ')}`);
}

export interface ConventionOptions {
  clock: Clock & { sync(): Promise<void>; readonly mode: 'system' | 'manual' };
  operatorToken: string;
  metrics: HttpMetrics;
  /** Set after Nest is initialised; until then Admin routes answer 503 rather than run unchecked. */
  access: AdminAccess;
  /** What the routes outside the two APIs read before their handler (http/body-gates). */
  gates: BodyGates;
}

/** The body limit a request was admitted with, when it is below the parsers' 8 MB (http/body-gates). */
const BODY_LIMIT = Symbol('bodyLimit');

const NOT_ORIGIN_FORM = Symbol('notOriginForm');
const NUL_ESCAPE = /%00/;
const HOSTLESS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Fastify's `rewriteUrl`, run once before routing. A request target that is not origin-form
 * (`GET http://x/platform/v1/... HTTP/1.1`, `OPTIONS *`) is marked, and refused with 400 by the first
 * hook: the router would route its path while a check reading the raw target saw no `/platform/`
 * (issue 8, finding 1). Origin-form targets get their unreserved escapes decoded (canonicalUrl).
 */
export function rewriteRequestTarget(request: { url?: string }): string {
  const url = request.url ?? '/';
  if (!url.startsWith('/')) {
    (request as Record<symbol, boolean>)[NOT_ORIGIN_FORM] = true;
    return url;
  }
  return canonicalUrl(url);
}

/**
 * decisions §3.1 for the bodies Fastify never parses (GET, HEAD): one sent with another type than
 * JSON is refused as on every other method, not silently ignored. Its bytes are never read.
 */
function unparsedBodyProblem(request: FastifyRequest): string | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  if (!hasBody || isJsonUtf8(request.headers['content-type'])) return undefined;
  return `Content-Type must be application/json; charset=utf-8 (got '${request.headers['content-type'] ?? ''}')`;
}

/** `Host` or `Authorization` when the request sent it more than once (rawHeaders: name, value, name, value, ...). */
function repeatedHeader(raw: string[]): string | undefined {
  let host = 0;
  let authorization = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') host++;
    else if (name.length === 13 && name.toLowerCase() === 'authorization') authorization++;
  }
  return host > 1 ? 'Host' : authorization > 1 ? 'Authorization' : undefined;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The operator API (decisions §10), by the matched route or, for unknown routes, by the path. */
function isOperator(route: string | undefined, path: string): boolean {
  if (route !== undefined) return route.startsWith(OPERATOR_PREFIX);
  return path.startsWith(OPERATOR_PREFIX) || path === '/platform';
}

/**
 * A known route outside the Admin and operator APIs (merchant pages, OAuth, docs, health): its gate
 * decides, before a byte of the body is read, how large the body may be and whether the headers
 * allow reading it at all (issue 14, finding 1). GET and HEAD bodies are never read; any other
 * method on a route without a gate takes no body.
 */
async function admitOutsideApis(
  request: FastifyRequest,
  reply: FastifyReply,
  route: string,
  gates: BodyGates,
): Promise<FastifyReply | undefined> {
  const method = request.method;
  if (method === 'GET' || method === 'HEAD') return undefined;
  const gate = gates.get(method, route);
  if (gate === undefined) {
    if (declaresBody(request)) return sendError(reply, 413, 'This route takes no request body');
    (request as FastifyRequest & { [BODY_LIMIT]?: number })[BODY_LIMIT] = 0;
    return undefined;
  }
  if (Number(request.headers['content-length'] ?? 0) > gate.maxBytes) return gate.refuse(request, reply, tooLarge(gate.maxBytes));
  try {
    await gate.admit(request);
  } catch (error) {
    return gate.refuse(request, reply, error);
  }
  (request as FastifyRequest & { [BODY_LIMIT]?: number })[BODY_LIMIT] = gate.maxBytes;
  return undefined;
}

/**
 * Cross-cutting rules that hold for every route, known or not (decisions §1-§3, §10): the trace id,
 * JSON content type, the Admin API version, the operator token, the size caps. Every decision is
 * made on the route the router matched (`routeOptions.url`), and for an unknown route on its path;
 * everything here runs before the body is read.
 */
export function installHttpConventions(fastify: FastifyInstance, options: ConventionOptions): void {
  const { clock, operatorToken, metrics, access, gates } = options;
  installBodyParser(fastify);

  // A route admitted with a small limit reads at most that many bytes, also when the body is
  // chunked (no Content-Length to refuse it by): the stream is cut off there (413).
  fastify.addHook('preParsing', async (request, _reply, payload) => {
    const limit = (request as FastifyRequest & { [BODY_LIMIT]?: number })[BODY_LIMIT];
    return limit === undefined ? payload : capStream(payload, limit);
  });

  // The request's traceId is the current trace for all it does: the events it writes carry it to
  // the sender's log lines (issue 15). First hook, callback style, so the rest of the request runs
  // inside it.
  fastify.addHook('onRequest', (request, _reply, done) => withTraceId(request.id, done));

  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('traceId', request.id);
    reply.header('content-type', JSON_CONTENT_TYPE);
    if ((request.raw as unknown as Record<symbol, boolean>)[NOT_ORIGIN_FORM]) {
      return sendError(reply, 400, 'The request target must be origin-form: a path starting with /, the host in the Host header');
    }
    // Node's own Host check is off (bootstrap) so that this answer carries the trace id. Stores are
    // named by their host and links are built from it (decisions §1.2, §6.3): the service endpoints
    // answer without one (probes speak HTTP/1.0), every other route needs it.
    if (!request.headers.host && !HOSTLESS_PATHS.has(pathOf(request.url))) {
      return sendError(reply, 400, 'A Host header is required');
    }
    // Node keeps the first of two Host or Authorization headers; a proxy in front may read the last.
    // Two of either is ambiguous about the store or the caller: refused (RFC 9112 §3.2 for Host).
    const repeated = repeatedHeader(request.raw.rawHeaders);
    if (repeated) return sendError(reply, 400, `The request has more than one ${repeated} header`);
    // NUL is not text: PostgreSQL cannot store or compare it (SQLite can), so it is refused on both.
    if (NUL_ESCAPE.test(request.url))
      return sendError(reply, 400, 'The request target holds %00 (NUL), which is not allowed in any parameter');
    // Bodies of every method count, also those Fastify never parses (GET, DELETE with a body); a
    // body too large by its Content-Length is refused once route and version are known (413).
    const declaredTooLarge = Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES;
    const route = request.is404 ? undefined : request.routeOptions.url;
    const path = pathOf(request.url);
    const admin = route !== undefined ? route.startsWith(ADMIN_PREFIX) : path.startsWith(ADMIN_PREFIX);
    const operator = isOperator(route, path);
    if (!admin && !operator) {
      // An unknown route is answered before its body is read (issue 8, finding 4).
      if (request.is404 || route === undefined) return notRouted(reply, path, clock.mode);
      return admitOutsideApis(request, reply, route, gates);
    }
    // decisions §10: every process reads the one shared clock (manual mode), before any time rule.
    await clock.sync();
    if (admin) {
      // The version the router bound to `:version`, or for an unknown route the path's segment.
      const params = request.params as { version?: unknown } | undefined;
      const requested =
        route !== undefined && typeof params?.version === 'string' ? params.version : (path.slice(ADMIN_PREFIX.length).split('/')[0] ?? '');
      const resolution = resolveVersion(requested, clock.now());
      if (!resolution.ok) return sendError(reply, 404, resolution.message);
      request.apiVersion = resolution.served;
      reply.header('X-Platform-API-Version', resolution.served);
      if (route === undefined) return notRouted(reply, path, clock.mode);
      if (declaredTooLarge) return sendError(reply, 413, BODY_TOO_LARGE);
      const check = access.current;
      if (!check) return sendError(reply, 503, 'The service is starting; try again shortly');
      try {
        await check(request, reply, route);
      } catch (error) {
        const { status, message } = toErrorResponse(error);
        // A database outage (503) is not a bug: one line, no stack, for each request it refuses.
        if (status === 503) request.log.warn({ message }, 'access check refused: a dependency is unreachable');
        else if (status >= 500) request.log.error({ err: error }, 'access check failed');
        return sendError(reply, status, message);
      }
      const unread = unparsedBodyProblem(request);
      if (unread) return sendError(reply, 400, unread);
      return;
    }
    // decisions §10: the operator API answers nothing, not even "no such route", without its token.
    if (!isOperatorToken(request.headers.authorization, operatorToken)) return sendError(reply, 401, 'Invalid or missing operator token');
    if (route === undefined) return notRouted(reply, path, clock.mode);
    if (declaredTooLarge) return sendError(reply, 413, BODY_TOO_LARGE);
    // decisions §10: moving the clock exists only with PLATFORM_CLOCK=manual; otherwise the route is
    // unknown, whatever the body says.
    if (request.method === 'POST' && route === CLOCK_PATH && clock.mode !== 'manual') {
      return sendError(reply, 404, 'Not Found');
    }
    const unread = unparsedBodyProblem(request);
    if (unread) return sendError(reply, 400, unread);
  });

  fastify.addHook('onSend', (request, reply, payload, done) => {
    // A UTF-16 unit is at most 3 UTF-8 bytes: the exact count is needed only near the cap.
    const size =
      typeof payload === 'string'
        ? payload.length * 3 <= MAX_RESPONSE_BYTES
          ? 0
          : Buffer.byteLength(payload)
        : Buffer.isBuffer(payload)
          ? payload.length
          : 0;
    if (size > MAX_RESPONSE_BYTES) {
      // Pages shrink and writes refuse, before committing, what they could not echo; this is the
      // last guard of the cap. A read answers 400 asking for less; a write reaching it is a bug.
      const read = request.method === 'GET' || request.method === 'HEAD';
      request.log[read ? 'warn' : 'error']({ size }, 'response over 8 MB refused');
      reply.code(read ? 400 : 500);
      const message = read
        ? 'The response would exceed 8 MB; request fewer records (limit) or fewer fields (fields)'
        : 'Internal Server Error';
      return done(null, JSON.stringify({ errors: message }));
    }
    done(null, payload);
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    // pino's isLevelEnabled: the line's object is not even built when info is off.
    if ((request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') ?? true) {
      request.log.info(
        { method: request.method, url: redactQuerySecrets(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request completed',
      );
    }
    done();
  });
}
