import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { parentIdOf } from './trace-context';

/**
 * Optional OpenTelemetry export (issue 15): with the standard OTEL_EXPORTER_OTLP_ENDPOINT set, one
 * server span per request goes over OTLP/HTTP to that collector (the SDK reads the other standard
 * OTEL_* variables too: headers, batch delays, service name). The span's trace id is the request's
 * traceId, so a trace in the collector, the traceId header and the log lines name the same thing:
 * the caller's trace (a `traceparent` header, the span its child), or the one made for the request.
 * Off when the variable is unset: nothing is loaded into the request path.
 */
export interface Tracing {
  shutdown(): Promise<void>;
}

export async function startTracing(fastify: FastifyInstance, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  // Loaded only when switched on: the SDK is large, and a service without a collector pays nothing.
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || 'platform-api',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [],
  });
  sdk.start();
  const tracer = trace.getTracer('platform-api');
  fastify.addHook('onResponse', (request, reply, done) => {
    recordRequestSpan(tracer, request, reply.statusCode, reply.elapsedTime);
    done();
  });
  return { shutdown: () => sdk.shutdown() };
}

function recordRequestSpan(tracer: Tracer, request: FastifyRequest, status: number, elapsedMs: number): void {
  const route = request.is404 ? undefined : request.routeOptions.url;
  const traceId = request.id.replace(/-/g, '');
  // The caller's span is the parent when it sent one; otherwise a parent that only carries the trace id.
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId: parentIdOf(request.headers.traceparent) ?? randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  const end = Date.now();
  const span = tracer.startSpan(
    route ? `${request.method} ${route}` : request.method,
    {
      kind: SpanKind.SERVER,
      startTime: end - elapsedMs,
      attributes: {
        'http.request.method': request.method,
        'url.path': request.url.split('?')[0],
        'http.response.status_code': status,
        ...(route ? { 'http.route': route } : {}),
      },
    },
    parent,
  );
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  context.with(trace.setSpan(parent, span), () => span.end(end));
}
