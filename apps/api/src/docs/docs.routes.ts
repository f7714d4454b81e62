import { generateOpenApiDocument } from '@platform/contract';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Platform Admin API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true });</script>
</body></html>`;

/**
 * decisions §12.3: the OpenAPI document generated from the contract, and a browsable reference whose
 * assets are served by the API itself (no CDN: blank behind firewalls otherwise).
 */
export function registerDocsRoutes(fastify: FastifyInstance): void {
  const document = JSON.stringify(generateOpenApiDocument());
  const assetDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(assetDir, name)) }]));

  fastify.get('/openapi.json', (_request, reply) => {
    void reply.header('content-type', 'application/json; charset=utf-8').send(document);
  });
  fastify.get('/docs', (_request, reply) => {
    void reply.header('content-type', 'text/html; charset=utf-8').send(PAGE);
  });
  fastify.get<{ Params: { name: string } }>('/docs/assets/:name', (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.code(404).send(JSON.stringify({ errors: 'Not Found' }));
    return reply.header('content-type', asset.type).header('cache-control', 'public, max-age=86400').send(asset.body);
  });
}
