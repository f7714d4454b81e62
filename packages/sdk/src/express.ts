import { verifyWebhook, webhookErrorAnswer, type VerifiedWebhook } from '@platform/sdk';
import { rawBodyOf, type NodeRequestLike } from './raw-body';

interface ResponseLike {
  headersSent?: boolean;
  status(code: number): ResponseLike;
  json(body: unknown): unknown;
}

export interface ExpressWebhookOptions<Req, Res> {
  /** The app secret (several while rotating). */
  secret: string | readonly string[];
  /** Runs for a verified webhook; answer 200 is sent when it resolves (unless it answered itself). */
  onWebhook(webhook: VerifiedWebhook, req: Req, res: Res): unknown;
  /** Told about refused requests (bad signature, a JSON parser that ran first) and failures of onWebhook. */
  onError?(error: unknown, req: Req): void;
}

/**
 * An Express handler for Platform webhooks: `app.post('/webhooks', platformWebhook({ secret, onWebhook }))`.
 * It reads the raw body itself, so mount it before `express.json()` or give its route `express.raw()`;
 * behind a JSON parser it answers 500 and says so (the signature covers the bytes, not the object).
 */
export function platformWebhook<Req extends NodeRequestLike = NodeRequestLike, Res extends ResponseLike = ResponseLike>(
  options: ExpressWebhookOptions<Req, Res>,
): (req: Req, res: Res) => Promise<void> {
  return async (req, res) => {
    let webhook: VerifiedWebhook;
    try {
      webhook = verifyWebhook(await rawBodyOf(req), req.headers, options.secret);
    } catch (error) {
      options.onError?.(error, req);
      const answer = webhookErrorAnswer(error);
      res.status(answer.status).json(answer.body);
      return;
    }
    try {
      await options.onWebhook(webhook, req, res);
      if (!res.headersSent) res.status(200).json({});
    } catch (error) {
      options.onError?.(error, req);
      if (!res.headersSent) res.status(500).json({ errors: 'The webhook handler failed' });
    }
  };
}

export { verifyWebhook, WebhookVerificationError } from '@platform/sdk';
export type { VerifiedWebhook } from '@platform/sdk';
