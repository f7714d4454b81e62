import { API_MAIN, startApi, startProgram, TEST_CLOCK_START, type ApiProgram, type Program } from '@platform/test-process';
import { OPERATOR_TOKEN } from './harness';

/** The built API as the start command runs it: its own process, so its memory and its event loop are its own. */
export type ApiProcess = ApiProgram;

export function startApiProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  return startApi({
    DATABASE_URL: databaseUrl,
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SECRET: 'test-secret-for-cursors-0123456789',
    PLATFORM_CLOCK: 'manual',
    PLATFORM_CLOCK_START: TEST_CLOCK_START,
    ...env,
  });
}

export const START_OPERATOR_TOKEN = 'operator-token-from-the-environment-0123';

/**
 * The built API with only what its start needs, for the tests that read what a start prints (or fails
 * with): not yet listening, nothing logged unless `env` sets LOG_LEVEL (undefined: the default level).
 */
export function startBuiltApi(env: Record<string, string | undefined>): Program {
  return startProgram(API_MAIN, {
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      PLATFORM_SECRET: 'secret-for-the-start-test-0123',
      PLATFORM_OPERATOR_TOKEN: START_OPERATOR_TOKEN,
      PLATFORM_SEED_DEMO: 'false',
      LOG_LEVEL: 'silent',
      ...env,
    },
  });
}
