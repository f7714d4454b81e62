import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { listenError } from '@platform/db';

/**
 * decisions §12.3: `GET /metrics` without a token on its own port (PLATFORM_METRICS_PORT), for an
 * internal scraper; meant for a loopback or private address (PLATFORM_METRICS_HOST). Nothing else
 * is served there, and no request body is read.
 */
export async function listenForMetrics(registry: Registry, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end('{"errors":"Not Found"}');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end('{"errors":"Metrics unavailable"}'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(listenError(error, { host: 'PLATFORM_METRICS_HOST', port: 'PLATFORM_METRICS_PORT' }, host, port)),
    );
    server.listen(port, host, () => resolve());
  });
  return server;
}
