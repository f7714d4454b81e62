import { verifyWebhook, webhookErrorAnswer, type VerifiedWebhook } from '@platform/sdk';
import { rawBodyOf, type NodeRequestLike } from './raw-body';

interface ReplyLike {
  sent?: boolean;
  code(status: number): ReplyLike;
  send(body?: unknown): unknown;
}

interface FastifyLike {
  register(plugin: (instance: FastifyLike) => Promise<void>): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string,
    options: { parseAs: 'buffer' },
    parser: (req: unknown, body: Uint8Array, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  post(path: string, handler: (request: NodeRequestLike, reply: ReplyLike) => Promise<unknown>): unknown;
}

export interface FastifyWebhookOptions {
  secret: string | readonly string[];
  onWebhook(webhook: VerifiedWebhook, request: NodeRequestLike, reply: ReplyLike): unknown;
  onError?(error: unknown, request: NodeRequestLike): void;
}

/**
 * A Fastify route handler. Use it on a route whose body arrives as a buffer (as `registerPlatformWebhook`
 * sets up); on a route behind Fastify's JSON parser it answers 500 and says why.
 */
export function platformWebhookHandler(options: FastifyWebhookOptions): (request: NodeRequestLike, reply: ReplyLike) => Promise<unknown> {
  return async (request, reply) => {
    let webhook: VerifiedWebhook;
    try {
      webhook = verifyWebhook(await rawBodyOf(request), request.headers, options.secret);
    } catch (error) {
      options.onError?.(error, request);
      const answer = webhookErrorAnswer(error);
      return reply.code(answer.status).send(answer.body);
    }
    try {
      await options.onWebhook(webhook, request, reply);
      return reply.sent ? reply : reply.code(200).send({});
    } catch (error) {
      options.onError?.(error, request);
      return reply.code(500).send({ errors: 'The webhook handler failed' });
    }
  };
}

/**
 * `registerPlatformWebhook(app, '/webhooks', { secret, onWebhook })`: a POST route in its own
 * encapsulated context whose every content type is read as a buffer, so the bytes reach the
 * verifier untouched while the rest of the app keeps Fastify's JSON parser.
 */
export function registerPlatformWebhook(app: unknown, path: string, options: FastifyWebhookOptions): unknown {
  const fastify = app as FastifyLike;
  return fastify.register(async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    instance.post(path, platformWebhookHandler(options));
  });
}

export { verifyWebhook, WebhookVerificationError } from '@platform/sdk';
export type { VerifiedWebhook } from '@platform/sdk';
