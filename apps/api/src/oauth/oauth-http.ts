import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ADMIN_PREFIX, MAX_BODY_BYTES } from '../http/wire';
import { envelopeOf } from './oauth-envelope.filter';
import { registerOAuthWebPage } from './oauth-pages.controller';

/** The token calls, whose `sign` covers the exact body bytes (decisions §5.2). */
export const OAUTH_TOKEN_PATH = '/admin/oauth/token/';

const RAW_BODY = Symbol('rawBody');

/** The body bytes of a token call as received ('' when it had none). */
export function rawBodyOf(request: FastifyRequest): Uint8Array {
  return (request as FastifyRequest & { [RAW_BODY]?: Buffer })[RAW_BODY] ?? new Uint8Array(0);
}

/**
 * What OAuth needs from Fastify itself: the token calls' raw body bytes, their refusals raised
 * before their handler (malformed JSON, 413, an unknown /admin/oauth/token/ path) in their envelope
 * too, the fragment page at both spellings of its path, and the shared clock read before them.
 */
export function installOAuthHttp(fastify: FastifyInstance, clock: { sync(): Promise<void> }): void {
  installOAuthRawBody(fastify);
  registerOAuthWebPage(fastify);
  // decisions §10: every process reads the one shared (manual) clock before a time rule, as the
  // Admin and operator APIs do: codes, sessions, links and token lifetimes are all times.
  fastify.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/admin/') && !request.url.startsWith(ADMIN_PREFIX)) await clock.sync();
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!request.url.startsWith(OAUTH_TOKEN_PATH) || reply.statusCode < 400 || typeof payload !== 'string') return done(null, payload);
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return done(null, payload);
    }
    const answer = parsed as { errors?: unknown; i18nCode?: unknown } | null;
    // Already in the envelope (the handler's filter, a gate's refusal): as it is.
    if (typeof answer?.errors !== 'string' || answer.i18nCode !== undefined) return done(null, payload);
    const errors = answer.errors;
    done(null, JSON.stringify(envelopeOf(reply.statusCode, errors)));
  });
}

/**
 * Keeps the raw bytes of the token calls' bodies before the JSON parser reads them: the sign is
 * checked over those bytes, not over a re-serialisation. The route's gate (OAuthTokensService)
 * has already cut the stream at its 4 KB (http/body-gates); the 8 MB check here is a second guard.
 */
function installOAuthRawBody(fastify: FastifyInstance): void {
  fastify.addHook('preParsing', async (request, _reply, payload) => {
    if (!request.url.startsWith(OAUTH_TOKEN_PATH)) return payload;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      size += buffer.length;
      if (size > MAX_BODY_BYTES) {
        throw Object.assign(new Error('Request body is larger than the 8 MB limit'), {
          statusCode: 413,
          code: 'FST_ERR_CTP_BODY_TOO_LARGE',
        });
      }
      chunks.push(buffer);
    }
    const body = Buffer.concat(chunks);
    (request as FastifyRequest & { [RAW_BODY]?: Buffer })[RAW_BODY] = body;
    const replay = Readable.from(body.length > 0 ? [body] : []);
    return Object.assign(replay, { receivedEncodedLength: body.length });
  });
}
