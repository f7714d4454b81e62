import type { FastifyReply, FastifyRequest } from 'fastify';

/** Checks an Admin API call: token, rate limit, store status, scope (access/access.service.ts AccessService). */
export type AccessCheck = (request: FastifyRequest, reply: FastifyReply, route: string) => Promise<void>;

/**
 * Where the onRequest hook (http/conventions), which Fastify runs before Nest, finds the Admin API's
 * access check. Made by the bootstrap before Nest, handed to the HTTP module; AccessService puts
 * its check here when its module starts. Until then the hook answers 503 rather than run unchecked.
 */
export class AdminAccess {
  private check: AccessCheck | undefined;

  provide(check: AccessCheck): void {
    this.check = check;
  }

  get current(): AccessCheck | undefined {
    return this.check;
  }
}
