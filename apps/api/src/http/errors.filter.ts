import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { RequestValidationError } from '@ts-rest/nest';
import { isDomainError } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodError } from 'zod';
import { isDatabaseUnavailable } from '../core/unavailable';
import { BODY_TOO_LARGE, JSON_CONTENT_TYPE } from './wire';

/** Issue 15: what a request meets while the database is down (with Retry-After, bootstrap.ts). */
export const DATABASE_UNAVAILABLE = 'The database is unavailable; try again shortly';

/** Problems named in one message; a body of 400,000 bad entries is not answered with 400,000 of them. */
const MAX_ISSUES = 20;
/** Longest `errors` text (characters): a message is for a person, and every answer stays small. */
const MAX_MESSAGE_LENGTH = 16_384;

interface ErrorResponse {
  status: number;
  message: string;
}

type Issue = ZodError['issues'][number];

/**
 * Of a union that matched no branch and has no message of its own, the issues of the branch that
 * got furthest (its deepest issue path): `products[3].title: required` rather than "invalid input".
 */
function unionIssues(issue: Issue): Issue[] {
  // zod's own message of a union without one; a union given its own message keeps it.
  if (issue.code !== 'invalid_union' || issue.message !== 'Invalid input' || issue.unionErrors.length === 0) return [issue];
  const depth = (error: ZodError) => {
    let deepest = 0;
    for (const i of error.issues) deepest = Math.max(deepest, i.path.length);
    return deepest;
  };
  const best = issue.unionErrors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
  return best.issues.slice(0, MAX_ISSUES).flatMap(unionIssues);
}

/** What a required request body that was not sent is told (`body: required`), on every route. */
export const MISSING = 'required';

/** `field: message; field: message` (decisions §4), from a zod error of a request part. */
export function formatZodError(error: ZodError, root: string): string {
  const issues = error.issues.slice(0, MAX_ISSUES).flatMap(unionIssues).slice(0, MAX_ISSUES);
  const more = error.issues.length > MAX_ISSUES ? `; and ${error.issues.length - MAX_ISSUES} more problems` : '';
  return (
    issues
      .map((issue) => {
        const path = issue.path.reduce<string>(
          (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${part}` : String(part)),
          '',
        );
        // issue 43: a missing body reads the same on every route, whatever its schema's own words.
        if (!path && issue.code === 'invalid_type' && issue.received === 'undefined') return `${root}: ${MISSING}`;
        return `${path || root}: ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}`;
      })
      .join('; ') + more
  );
}

/** A message cut to MAX_MESSAGE_LENGTH characters (never inside a surrogate pair). */
export function boundedMessage(message: string): string {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  let end = MAX_MESSAGE_LENGTH - 1;
  if (/[\uD800-\uDBFF]/.test(message.charAt(end - 1))) end--;
  return `${message.slice(0, end)}…`;
}

/** Fastify's own errors (raised before a route runs) carry a code and a status. */
function fromFastifyError(error: { code?: string; statusCode?: number; message?: string }): ErrorResponse | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: BODY_TOO_LARGE };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, message: error.message ?? 'Bad Request' };
    default:
      if (error.code?.startsWith('FST_') && error.statusCode && error.statusCode < 500) {
        return { status: error.statusCode, message: error.message ?? 'Bad Request' };
      }
      return undefined;
  }
}

export function toErrorResponse(exception: unknown): ErrorResponse {
  if (isDomainError(exception)) return { status: exception.status, message: exception.message };
  if (exception instanceof RequestValidationError) {
    // decisions §4: a path that does not parse names no resource (404); a bad query parameter is 400;
    // a well-formed body that breaks the schema is 422.
    if (exception.pathParams) return { status: 404, message: 'Not Found' };
    if (exception.query) return { status: 400, message: formatZodError(exception.query, 'query') };
    if (exception.headers) return { status: 400, message: formatZodError(exception.headers, 'headers') };
    if (exception.body) return { status: 422, message: formatZodError(exception.body, 'body') };
    return { status: 400, message: 'Bad Request' };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return { status, message: 'Not Found' };
    if (status === 413) return { status, message: BODY_TOO_LARGE };
    const response = exception.getResponse();
    const message =
      typeof response === 'string'
        ? response
        : typeof response === 'object' && response !== null && 'errors' in response && typeof response.errors === 'string'
          ? response.errors
          : exception.message;
    return { status, message };
  }
  if (typeof exception === 'object' && exception !== null) {
    const fromFastify = fromFastifyError(exception as { code?: string; statusCode?: number; message?: string });
    if (fromFastify) return fromFastify;
    if (isDatabaseUnavailable(exception)) return { status: 503, message: DATABASE_UNAVAILABLE };
  }
  return { status: 500, message: 'Internal Server Error' };
}

const logger = new Logger('errors');

/** The one place an exception becomes `{"errors": "..."}` (style: Errors): the filter's, and the routes served outside Nest. */
export function sendErrorResponse(request: FastifyRequest, reply: FastifyReply, exception: unknown): FastifyReply {
  let { status, message: full } = toErrorResponse(exception);
  if (status === 415) {
    // A Content-Type Fastify cannot even parse (`application/json, text/plain`) reaches Nest as its
    // 415; decisions §3.1 and §4 make every wrong Content-Type a 400, as the body parser answers.
    status = 400;
    full = `Content-Type must be application/json; charset=utf-8 (got '${request.headers['content-type'] ?? ''}')`;
  }
  const message = boundedMessage(full);
  if (status === 503) {
    // An outage, not a bug: no stack for every request it fails.
    logger.warn({ traceId: request.id }, `${request.method} ${request.url}: ${message}`);
  } else if (status >= 500) {
    logger.error({ traceId: request.id, err: exception }, `unhandled error on ${request.method} ${request.url}`);
  }
  if (reply.sent) return reply;
  return reply
    .code(status)
    .header('content-type', JSON_CONTENT_TYPE)
    .send(JSON.stringify({ errors: message }));
}

@Catch()
export class ErrorsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    void sendErrorResponse(host.switchToHttp().getRequest<FastifyRequest>(), host.switchToHttp().getResponse<FastifyReply>(), exception);
  }
}
