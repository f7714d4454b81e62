import { BODY_ALREADY_PARSED_MESSAGE, WebhookVerificationError } from '@platform/sdk';

/** A Node request as Express, Fastify and Nest give it (only what the handlers read). */
export interface NodeRequestLike {
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  rawBody?: unknown;
  readableEnded?: boolean;
  on?(event: string, listener: (...args: never[]) => void): unknown;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Reads the stream when nothing has, else takes the bytes a framework kept; refuses a body a JSON parser turned into an object. */
export async function rawBodyOf(req: NodeRequestLike): Promise<Uint8Array | string> {
  if (req.rawBody instanceof Uint8Array || typeof req.rawBody === 'string') return req.rawBody;
  if (req.body instanceof Uint8Array || typeof req.body === 'string') return req.body;
  if (req.body !== undefined && req.body !== null && typeof req.body === 'object' && Object.keys(req.body).length > 0) {
    throw new WebhookVerificationError('BODY_ALREADY_PARSED', BODY_ALREADY_PARSED_MESSAGE);
  }
  if (req.readableEnded || typeof req.on !== 'function') {
    throw new WebhookVerificationError('BODY_ALREADY_PARSED', BODY_ALREADY_PARSED_MESSAGE);
  }
  const on = req.on.bind(req) as (event: string, listener: (...args: unknown[]) => void) => unknown;
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    on('data', (chunk) => {
      const bytes = chunk as Uint8Array;
      size += bytes.length;
      if (size > MAX_BODY_BYTES) reject(new WebhookVerificationError('MALFORMED_BODY', 'The webhook body is over 8 MB'));
      else chunks.push(bytes);
    });
    on('end', () => {
      const all = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        all.set(c, at);
        at += c.length;
      }
      resolve(all);
    });
    on('error', (error) => reject(error));
  });
}
