import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * W3C Trace Context: `traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>` (a later
 * version may append `-...`). Fixed-length parts, so the pattern is linear.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The trace id of a valid `traceparent` header, or undefined (absent, malformed, all zeros, version ff). */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length > 512) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return undefined;
  return traceId;
}

/** The caller's span id (the parent of ours) of a valid `traceparent`, or undefined. */
export function parentIdOf(header: string | string[] | undefined): string | undefined {
  if (traceIdOf(header) === undefined) return undefined;
  return TRACEPARENT.exec((header as string).trim())?.[3];
}

/**
 * The request's traceId (issue 15, one observability story): the caller's trace id when it sent a
 * valid `traceparent`, so its trace and our logs line up; otherwise a new UUID, as before.
 */
export function requestTraceId(request: IncomingMessage): string {
  return traceIdOf(request.headers.traceparent) ?? randomUUID();
}
