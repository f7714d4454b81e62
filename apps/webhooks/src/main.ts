import {
  createDb,
  DatabaseUnavailableError,
  describeDatabaseError,
  ListenError,
  platformLogger,
  prepareSchema,
  registerPoolMetrics,
  SchemaBehindError,
} from '@platform/db';
import { createSenderClock } from './clock';
import { loadSenderConfig, SenderConfigError, type SenderConfig } from './config';
import { createDeliveryAgent } from './deliver';
import { createSenderMetrics, serveSenderEndpoints } from './metrics';
import { createSender } from './sender';
import { createSql } from './sql';

function readConfig(): SenderConfig {
  try {
    return loadSenderConfig();
  } catch (error) {
    if (error instanceof SenderConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * The webhook sender (decisions §11, docs/webhooks-sender.md): `node dist/main.js`, beside the API
 * (`pnpm start` with PLATFORM_SENDER=embedded) or as many separate processes as needed. Like the
 * API it applies pending migrations at start under PLATFORM_MIGRATE=auto (under the migration lock,
 * so beside an API doing the same) and refuses a schema behind the code under `check` (issue 15).
 */
async function main(): Promise<void> {
  const config = readConfig();
  try {
    await prepareSchema(config.databaseUrl, config.migrate, { sqliteDriver: config.sqliteDriver });
  } catch (error) {
    const known = error instanceof DatabaseUnavailableError || error instanceof SchemaBehindError;
    console.error(`webhook sender: cannot start: ${known ? (error as Error).message : describeDatabaseError(error, config.databaseUrl)}`);
    process.exit(1);
  }
  // The API's JSON lines (issue 15): ISO time, level name, `service: "webhooks"`, pid.
  const logger = platformLogger('webhooks', config.logLevel);
  const db = createDb(config.databaseUrl, { sqliteDriver: config.sqliteDriver });
  const sql = createSql(db, {
    vacuumEvery: config.vacuumEvery,
    warn: (error) => logger.warn({ err: error }, 'VACUUM of webhook_deliveries failed (autovacuum still runs)'),
  });
  const clock = createSenderClock(sql, config.clock, config.clockStart);
  const metrics = createSenderMetrics(sql, clock, { processMetrics: config.metricsPort > 0 });
  const agent = createDeliveryAgent({
    allowPrivate: config.allowPrivate,
    connectTimeoutMs: config.connectTimeoutMs,
    timeoutMs: config.timeoutMs,
    ...(config.proxy !== undefined ? { proxy: config.proxy } : {}),
  });
  const sender = createSender({ sql, config, clock, agent, metrics, logger });
  registerPoolMetrics(metrics.registry, db);
  let stopping = false;
  const endpoints = { metrics, ping: () => sql.query('SELECT 1'), stopping: () => stopping };
  let metricsServer: Awaited<ReturnType<typeof serveSenderEndpoints>> | undefined;
  try {
    metricsServer = config.metricsPort > 0 ? await serveSenderEndpoints(endpoints, config.metricsHost, config.metricsPort) : undefined;
  } catch (error) {
    // decisions §12.4: a port in use or a host not of this machine is named in one line, not a stack.
    if (!(error instanceof ListenError)) throw error;
    console.error(`webhook sender: cannot start: ${error.message}`);
    process.exit(1);
  }

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, inFlight: sender.inFlight() }, 'webhook sender stopping: no new claims, finishing attempts in flight');
    await sender.stop();
    await sql.close();
    await agent.close();
    await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
    await db.close();
    logger.info('webhook sender stopped');
    process.exit(0);
  };
  // Installed before the start is announced: whoever reads that line may stop the sender at once.
  // `on`, not `once`: a second signal while stopping (a terminal's Ctrl-C reaches both this process
  // and `./dev.sh start`, which passes it on) is ignored by `stop`, not a kill by the default action.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  logger.info(
    {
      senderId: sender.id,
      database: config.databaseUrl.startsWith('file:') ? config.databaseUrl : 'postgresql',
      concurrency: config.maxInFlight,
      perHost: config.perHost,
      perApp: config.perApp,
      pollMs: config.pollMs,
      leaseMs: config.leaseMs,
      retentionDays: config.retentionMs / 86_400_000,
      allowPrivate: config.allowPrivate,
      // Its origin only: the URL may hold a password.
      proxy: config.proxy !== undefined ? new URL(config.proxy).origin : 'none',
      metrics: metricsServer ? `http://${config.metricsHost}:${config.metricsPort}/metrics` : 'off',
    },
    'webhook sender started',
  );

  await sender.run();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
