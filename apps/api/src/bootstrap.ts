import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { contract, precompileBodies } from '@platform/contract';
import { createDb, platformLogger, registerPoolMetrics, type Db } from '@platform/db';
import { LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Socket } from 'node:net';
import { AppModule } from './app.module';
import { ClockService } from './core/clock.service';
import { PinoNestLogger } from './core/nest-logger';
import type { Config } from './config';
import { registerDocsRoutes } from './docs/docs.routes';
import { listenForMetrics } from './health/metrics-listener';
import { startTracing } from './http/tracing';
import { AdminAccess } from './http/admin-access';
import { BodyGates } from './http/body-gates';
import { installHttpConventions, rewriteRequestTarget } from './http/conventions';
import { MAX_BODY_BYTES } from './http/wire';
import { HttpMetrics } from './http/metrics';
import { AnswerSeal } from './idempotency/answer-seal';
import { installIdempotency } from './idempotency/idempotency.hooks';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { IdempotencyService } from './idempotency/idempotency.service';
import { createRateLimiter } from './http/rate-limiter';
import { requestTraceId } from './http/trace-context';
import { answerClientError, answerConnect, answerFrameworkError } from './http/transport-errors';
import { EVERY_HOP_WARNING, fastifyTrustProxy } from './core/trusted-proxies';
import { installMerchantFormParser } from './merchant/merchant-forms';
import { installMerchantNotFound, MerchantNotFound, MerchantNotFoundPages } from './merchant/merchant-not-found';
import { installOAuthHttp } from './oauth/oauth-http';

/** The Retry-After of a 503: PostgreSQL restarts or fails over within seconds. */
const RETRY_AFTER_SECONDS = 5;

export interface Platform {
  app: NestFastifyApplication;
  db: Db;
  clock: ClockService;
  config: Config;
  /** The one logger of the process (JSON lines, service api). */
  logger: Logger;
  /** Stops the server and closes the database. */
  close(): Promise<void>;
}

let bodiesPrecompiled = false;
function precompileContractBodies(): void {
  if (bodiesPrecompiled) return;
  bodiesPrecompiled = true;
  precompileBodies(contract);
}

/** Builds the whole API (not yet listening): used by `main` and by the end-to-end tests. */
export async function createPlatform(config: Config, options: { db?: Db } = {}): Promise<Platform> {
  // Request bodies checked by compiled closures first, zod only for what they do not pass
  // (contract fast-parse.ts: same answers, zod's messages); once per process, idempotent.
  precompileContractBodies();
  const db = options.db ?? createDb(config.databaseUrl, { sqliteDriver: config.sqliteDriver });
  const clock = new ClockService(db, config.clock, config.clockStart);
  await clock.sync();

  const logger = platformLogger('api', config.logLevel);
  if (config.trustProxy === 'every-hop') logger.warn(EVERY_HOP_WARNING);
  const adapter = new FastifyAdapter({
    bodyLimit: MAX_BODY_BYTES,
    // docs/security.md: a client that stalls its headers or body, or idles, does not keep its socket.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    connectionTimeout: config.http.idleTimeoutMs,
    // Node checks the request and headers deadlines on this interval (default 30 s, so a deadline
    // could be overrun by that much).
    // requireHostHeader: false lets a request without Host reach the hooks, which refuse it with a
    // trace id and an {"errors"} body (http/conventions) instead of Node's bare 400.
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs),
      requireHostHeader: false,
    },
    // decisions §12.6: X-Forwarded-For/-Proto/-Host only on a connection from a listed address.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // While draining after SIGTERM (main.ts), a request arriving on a kept-alive connection is still
    // served (Fastify's default answers it 503), and its connection closed after the answer.
    return503OnClosing: false,
    genReqId: requestTraceId,
    // Every check on the URL sees the path the router routes; a target that is not origin-form is
    // marked here and refused by the first hook (http/conventions rewriteRequestTarget).
    rewriteUrl: rewriteRequestTarget,
    // Errors raised before any hook runs (a URL that does not decode, a request Node cannot parse)
    // still answer with a trace id and {"errors": "..."} (decisions §3.2, §4).
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // One log line per request (http/conventions onResponse), each line of a request labelled with its trace id.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    // One JSON format for every line (issue 15): Fastify's, Nest's and ours go to this one logger.
    loggerInstance: logger,
  });
  const fastify = adapter.getInstance();
  fastify.server.maxConnections = config.http.maxConnections;
  fastify.server.on('connect', (_request: unknown, socket: Socket) => answerConnect(fastify, socket));
  // Issue 15: every 503 (database down, draining, starting) tells the client when to try again.
  fastify.addHook('onSend', async (_request, reply) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  });
  const metrics = new HttpMetrics();
  registerPoolMetrics(metrics.registry, db);
  const rateLimiter = await createRateLimiter(config);
  const access = new AdminAccess();
  const gates = new BodyGates();
  installHttpConventions(fastify, { clock, operatorToken: config.operatorToken, metrics, access, gates });
  registerDocsRoutes(fastify, config.baseDomain);
  const tracing = await startTracing(fastify);
  // Merchant form posts and the raw bytes the OAuth token calls are signed over (docs/oauth.md).
  installMerchantFormParser(fastify);
  const merchantNotFound = new MerchantNotFound();
  installMerchantNotFound(fastify, merchantNotFound);
  installOAuthHttp(fastify, clock);
  // docs/idempotency.md: POSTs with an Idempotency-Key, after the access check, before the handler.
  // decisions §12.5: kept answers sealed with PLATFORM_SECRET; the previous secret still opens them
  // while it is set (its _UNTIL bounds what it is accepted for as a signature, not what it opens).
  const seal = new AnswerSeal([config.secret, ...(config.previousSecret ? [config.previousSecret.value] : [])]);
  installIdempotency(fastify, new IdempotencyService(new IdempotencyRepository(db), clock, seal, config.idempotencyQuota));

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register({ db, config, clock, metrics, rateLimiter, gates, access }),
    adapter,
    {
      bodyParser: false,
      logger: new PinoNestLogger(logger),
    },
  );
  await app.init();
  const notFoundPages = app.get(MerchantNotFoundPages);
  merchantNotFound.provide((request) => notFoundPages.render(request));
  const metricsListener =
    config.metrics.port > 0 ? await listenForMetrics(metrics.registry, config.metrics.host, config.metrics.port) : undefined;
  return {
    app,
    db,
    clock,
    config,
    logger,
    async close() {
      await new Promise<void>((resolve) => (metricsListener ? metricsListener.close(() => resolve()) : resolve()));
      await tracing?.shutdown();
      await app.close();
      await rateLimiter.close();
      await db.close();
    },
  };
}
