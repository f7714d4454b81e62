import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { SHARED_ENV, startLiveServer, type LiveServer } from './live-server';

/*
 * The API process the live files share (sharedLiveServer in live-server.ts), started when the first
 * of them asks for it, so a run without live files (a unit test alone, the PostgreSQL run) starts
 * none and needs no built API; stopped here after the last file. A file asks with a POST to this
 * loopback address, which answers where the API listens once it is up.
 */
let launcher: Server | undefined;
let starting: Promise<LiveServer> | undefined;

export async function setup(project: TestProject) {
  launcher = createServer((request, response) => {
    // One request a connection: the files of a worker share its fetch's pool, and a connection kept
    // from an earlier file was reused at the moment this server closed it as idle (5 s), failing the
    // next file's ask with "other side closed" (seen once files ran one at a time, 2026-12-02).
    response.setHeader('connection', 'close');
    if (request.method !== 'POST') return void response.writeHead(405).end();
    starting ??= startLiveServer(SHARED_ENV);
    starting.then(
      (server) => response.end(JSON.stringify({ origin: server.origin, port: server.port, databaseUrl: server.databaseUrl })),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => launcher!.listen(0, '127.0.0.1', resolve));
  project.provide('sharedLiveServerLauncher', `http://127.0.0.1:${(launcher.address() as AddressInfo).port}`);
}

export async function teardown() {
  launcher?.close();
  await (await starting?.catch(() => undefined))?.close();
}
