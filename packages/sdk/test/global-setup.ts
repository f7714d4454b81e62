import type { TestProject } from 'vitest/node';
import { SHARED_ENV, startLiveServer, type LiveServer } from './live-server';

// One API process for the live files that need no settings of their own (sharedLiveServer). Not in
// the PostgreSQL run (`test:pg`, TEST_DATABASE_URL), whose files start what they need themselves.
let server: LiveServer | undefined;

export async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) return;
  server = await startLiveServer(SHARED_ENV);
  project.provide('sharedLiveServer', { origin: server.origin, port: server.port, databaseUrl: server.databaseUrl });
}

export async function teardown() {
  await server?.close();
}
