import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The traceId of the request being served (issue 15, one observability story). The API enters it
 * once per request (an onRequest hook); the outbox reads it, so every event a request writes
 * carries its traceId to the sender's log lines without each feature passing it along. Outside a
 * request (background jobs, tests) there is none.
 */
const trace = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts) with `traceId` as the current trace. */
export function withTraceId<T>(traceId: string, work: () => T): T {
  return trace.run(traceId, work);
}

export function currentTraceId(): string | undefined {
  return trace.getStore();
}
