import type { FastifyRequest } from 'fastify';
import { ADMIN_PREFIX } from './wire';

declare module 'fastify' {
  interface FastifyRequest {
    /** The version that serves this Admin API request (decisions §2.5), set by the onRequest hook (conventions.ts). */
    apiVersion?: string;
  }
}

/** The route pattern the router matched, when it is an Admin API route (decisions §1.1). */
export function matchedAdminRoute(request: FastifyRequest): string | undefined {
  const route = request.is404 ? undefined : request.routeOptions.url;
  return route?.startsWith(ADMIN_PREFIX) ? route : undefined;
}
