import {
  BadRequestException,
  createParamDecorator,
  InternalServerErrorException,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { BODY_ALREADY_PARSED_MESSAGE, verifyWebhook, WebhookVerificationError, type VerifiedWebhook } from '@platform/sdk';
import type { NodeRequestLike } from './raw-body';

const VERIFIED = Symbol.for('@platform/sdk/webhook');

type Verifiable = NodeRequestLike & { [VERIFIED]?: VerifiedWebhook };

/**
 * A Nest guard: `@UseGuards(new PlatformWebhookGuard({ secret }))` on the webhook route. It needs the
 * raw body Nest keeps with `NestFactory.create(AppModule, adapter, { rawBody: true })` (Express or
 * Fastify adapter); without it every request is refused with a 500 that says so.
 */
export class PlatformWebhookGuard implements CanActivate {
  constructor(private readonly options: { secret: string | readonly string[] }) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Verifiable>();
    const raw = req.rawBody;
    try {
      if (!(raw instanceof Uint8Array) && typeof raw !== 'string') {
        throw new WebhookVerificationError('BODY_ALREADY_PARSED', `${BODY_ALREADY_PARSED_MESSAGE} (req.rawBody is missing)`);
      }
      req[VERIFIED] = verifyWebhook(raw, req.headers, this.options.secret);
      return true;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      const body = { errors: error.message };
      if (error.status === 401) throw new UnauthorizedException(body);
      if (error.status === 400) throw new BadRequestException(body);
      throw new InternalServerErrorException(body);
    }
  }
}

/** The verified webhook of a route guarded by `PlatformWebhookGuard`: `handle(@PlatformWebhook() webhook: VerifiedWebhook)`. */
export const PlatformWebhook = createParamDecorator((_data: unknown, context: ExecutionContext): VerifiedWebhook => {
  const webhook = context.switchToHttp().getRequest<Verifiable>()[VERIFIED];
  if (!webhook)
    throw new InternalServerErrorException({ errors: '@PlatformWebhook() needs the route to be guarded by PlatformWebhookGuard' });
  return webhook;
});

export { verifyWebhook, WebhookVerificationError } from '@platform/sdk';
export type { VerifiedWebhook } from '@platform/sdk';
