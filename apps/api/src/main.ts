import 'reflect-metadata';
import { createServer, isIP } from 'node:net';
import {
  DatabaseUnavailableError,
  describeDatabaseError,
  ListenError,
  listenError,
  prepareSchema,
  redactUrl,
  SchemaBehindError,
} from '@platform/db';
import { ConfigError, DEMO_HANDLE, loadConfig, type Config } from './config';
import { DRAINING } from './health/draining';
import { RedisConfigError } from './http/redis-config-error';

// The API itself (Nest, Fastify, every feature) is loaded once the start knows it can listen
// (checkListenable): a start that cannot go on ends before paying for it.
function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Before anything is migrated or built: can this process listen where it is told to? A HOST that
 * does not resolve or is not this machine's, a PORT (or PLATFORM_METRICS_PORT) already in use ends
 * the start at once with the same one line as the listen itself would give (issue 15), instead of
 * after the migrations and the whole API were built for nothing (about 1.5 s of CPU, and a schema
 * changed by a start that cannot serve it). The real listen later still reports what changes in
 * between (a port taken meanwhile).
 */
async function checkListenable(config: Config): Promise<void> {
  const probes: [string, number, { host: string; port: string }][] = [[config.host, config.port, { host: 'HOST', port: 'PORT' }]];
  if (config.metrics.port > 0)
    probes.push([config.metrics.host, config.metrics.port, { host: 'PLATFORM_METRICS_HOST', port: 'PLATFORM_METRICS_PORT' }]);
  for (const [host, port, vars] of probes) {
    const probe = createServer();
    const failure = await new Promise<unknown>((resolve) => {
      probe.once('error', resolve);
      probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
    });
    if (failure === undefined) continue;
    const known = listenError(failure, vars, host, port);
    // Anything else (a failure this check does not know) is left to the real listen to report; so is
    // a name none of whose addresses could be bound here: the probe binds the name's first address,
    // Fastify tries each (`localhost` on a machine without ::1).
    const code = (failure as { code?: string }).code;
    if (!(known instanceof ListenError) || (code === 'EADDRNOTAVAIL' && isIP(host) === 0)) continue;
    console.error(`platform-api: cannot start: ${known.message}`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  await checkListenable(config);
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only now: see the imports above */
  const { createPlatform } = require('./bootstrap') as typeof import('./bootstrap');
  const { latestStableVersion } = require('@platform/domain') as typeof import('@platform/domain');
  const { MerchantSessionsService, SIGN_IN_LINK_MINUTES } =
    require('./merchant/merchant-sessions.service') as typeof import('./merchant/merchant-sessions.service');
  const { seedDemo } = require('./seed/demo-seed') as typeof import('./seed/demo-seed');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const { applied } = await startupStep(config, () =>
    prepareSchema(config.databaseUrl, config.migrate, { sqliteDriver: config.sqliteDriver }),
  );
  const platform = await startupStep(config, () => createPlatform(config));
  // Issue 15: SIGTERM drains. /readyz turns 503 at once; after PLATFORM_DRAIN_DELAY_MS (the time a
  // balancer takes to see that and stop sending new connections: closing the listener earlier
  // resets connections it already sent) the listener closes; requests in flight finish; after
  // PLATFORM_DRAIN_TIMEOUT_MS the connections left are cut. Then the workers stop, the pools
  // close, and the process exits 0 (1 when it had to cut requests).
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    DRAINING.on = true;
    // warn, not info: a replica leaving is what an operator filtering on warnings still wants to see.
    platform.logger.warn(
      { signal, drainDelayMs: config.drainDelayMs, drainTimeoutMs: config.drainTimeoutMs },
      'draining: not ready now; no new connections after the delay; requests in flight finish',
    );
    if (config.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
    let cut = false;
    const deadline = setTimeout(() => {
      cut = true;
      platform.logger.error({ drainTimeoutMs: config.drainTimeoutMs }, 'drain: requests still in flight are cut');
      platform.app.getHttpServer().closeAllConnections();
    }, config.drainTimeoutMs);
    try {
      await platform.close();
    } catch (error) {
      cut = true;
      platform.logger.error({ err: error }, 'drain: closing failed');
    }
    clearTimeout(deadline);
    platform.logger.info('stopped');
    process.exit(cut ? 1 : 0);
  };
  // Installed before the start prints that it is up: whoever reads that line may stop it at once.
  // `on`, not `once`: a second signal while draining (a terminal's Ctrl-C reaches both this process
  // and `./dev.sh start`, which passes it on) is ignored by `stop`, not a kill by the default action.
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const seed = config.seedDemo ? await seedDemo(platform) : undefined;
  try {
    await platform.app.listen({ host: config.host, port: config.port });
  } catch (error) {
    const failure = listenError(error, { host: 'HOST', port: 'PORT' }, config.host, config.port);
    if (!(failure instanceof ListenError)) throw error;
    console.error(`platform-api: cannot start: ${failure.message}`);
    process.exit(1);
  }

  const address = platform.app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = `http://${host}:${port}`;
  const version = latestStableVersion(platform.clock.now());
  const lines = [
    '',
    `Platform Admin API is up (${applied.length} migration(s) applied, database ${redactUrl(config.databaseUrl)})`,
    `  Base URL:        ${base}/admin/openapi/${version}`,
    `  Store domain:    http://${DEMO_HANDLE}.${config.baseDomain}:${port} (or ${base}, resolved by token)`,
    `  API reference:   ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    // Shown only when the start command generated it; a token from the environment stays out of logs.
    `  Operator token:  ${config.showOperatorToken ? config.operatorToken : 'from PLATFORM_OPERATOR_TOKEN (not shown)'}`,
  ];
  if (seed) {
    // decisions §10: the start command prints a one-time sign-in link to the demo store's merchant pages.
    const signIn = await platform.app.get(MerchantSessionsService).createSignInLink({ protocol: 'http', port }, DEMO_HANDLE);
    lines.push(
      `  Merchant admin:  ${signIn.url}`,
      `                   one-time sign-in link: works once, within ${SIGN_IN_LINK_MINUTES} minutes; a new one any time: ./dev.sh link (or pnpm sign-in-link)`,
    );
    if (seed.token && seed.tokenValid) {
      lines.push(
        `  Demo token:      ${seed.token}`,
        '',
        '  Try it:',
        `    curl -s -H "Authorization: Bearer ${seed.token}" "${base}/admin/openapi/${version}/products/products.json?limit=2"`,
      );
    } else {
      // Only the token's hash is stored (decisions §5.1): a token not given and not made now cannot be shown again.
      const why = seed.token
        ? 'PLATFORM_DEMO_TOKEN is no longer valid (refreshed or revoked)'
        : 'not known to this start (only its hash is stored)';
      lines.push(
        `  Demo token:      ${why}; issue a new one with`,
        `                   POST ${base}/platform/v1/stores/${DEMO_HANDLE}/apps/<app id>/token/refresh (operator token)`,
      );
    }
  }
  console.log(lines.join('\n') + '\n');
}

/**
 * A start step whose known failures (database unreachable, schema behind under
 * PLATFORM_MIGRATE=check, a Redis URL that cannot work) end the process with one line and exit 1,
 * never a stack trace (issue 15).
 */
async function startupStep<T>(config: Config, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const known =
      error instanceof DatabaseUnavailableError ||
      error instanceof SchemaBehindError ||
      error instanceof RedisConfigError ||
      error instanceof ListenError;
    console.error(`platform-api: cannot start: ${known ? (error as Error).message : describeDatabaseError(error, config.databaseUrl)}`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
