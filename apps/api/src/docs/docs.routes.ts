import { generateOpenApiDocument } from '@platform/contract';
import { resolveHost } from '@platform/domain';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

/** The page's one script of its own, a file (no inline script, so the CSP can forbid them). */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true });\n`;

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Platform Admin API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script>
</body></html>`;

/**
 * The reference page's headers (issue 14, finding 4): scripts and styles of this origin only (the
 * reference UI sets style attributes, hence 'unsafe-inline' for styles alone), no framing, no
 * sniffing, nowhere to post, no referrer to another site.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

// Made on first use, once per process (platforms of one process share them): the document is about
// 0.1 s of CPU to generate and the assets 1.5 MB to read, which a replica's start need not pay.
let openApiJson: string | undefined;
let docsAssets: Map<string, { type: string; body: Buffer }> | undefined;

function openApiDocument(): string {
  return (openApiJson ??= JSON.stringify(generateOpenApiDocument()));
}

function docsAsset(name: string): { type: string; body: Buffer } | undefined {
  if (!docsAssets) {
    const assetDir = dirname(require.resolve('swagger-ui-dist/package.json'));
    docsAssets = new Map(Object.entries(ASSETS).map(([file, type]) => [file, { type, body: readFileSync(join(assetDir, file)) }]));
    docsAssets.set('docs-init.js', { type: 'application/javascript; charset=utf-8', body: Buffer.from(INIT_SCRIPT) });
  }
  return docsAssets.get(name);
}

/**
 * decisions §12.3: the OpenAPI document generated from the contract, and a browsable reference whose
 * assets are served by the API itself (no CDN: blank behind firewalls otherwise). Served on the bare
 * host only: a store's host is the merchant pages' origin, whose session cookie a script of this
 * page must never sit beside (issue 14, finding 4).
 */
export function registerDocsRoutes(fastify: FastifyInstance, baseDomain: string): void {
  const onStoreHost = (request: FastifyRequest) => resolveHost(request.host, baseDomain).kind === 'store';
  const notFound = JSON.stringify({ errors: 'Not Found' });

  fastify.get('/openapi.json', (_request, reply) => {
    void reply.header('content-type', 'application/json; charset=utf-8').send(openApiDocument());
  });
  fastify.get('/docs', (request, reply) => {
    if (onStoreHost(request)) return reply.code(404).send(notFound);
    return reply.headers(PAGE_HEADERS).send(PAGE);
  });
  fastify.get<{ Params: { name: string } }>('/docs/assets/:name', (request, reply) => {
    if (onStoreHost(request)) return reply.code(404).send(notFound);
    const asset = docsAsset(request.params.name);
    if (!asset) return reply.code(404).send(notFound);
    return reply
      .headers({ 'content-type': asset.type, 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' })
      .send(asset.body);
  });
}
