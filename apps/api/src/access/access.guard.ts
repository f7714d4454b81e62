import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { matchedAdminRoute } from '../http/admin-route';

/**
 * Fails closed: an Admin route reached without the `onRequest` access check having run (a hook
 * order changed, a route registered another way) is refused rather than served unauthenticated.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (matchedAdminRoute(request) !== undefined && request.auth === undefined) {
      throw new Error(`Admin route ${request.method} ${request.routeOptions.url} reached without its access check`);
    }
    return true;
  }
}
