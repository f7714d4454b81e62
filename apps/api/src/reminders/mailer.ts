import { Logger } from '@nestjs/common';
import type { createTransport as CreateTransport } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends a mail, or throws. */
export type Mailer = (mail: Mail) => Promise<void>;

/**
 * decisions §5.4: SMTP when PLATFORM_SMTP_URL is set (`smtp://user:pass@host:port`, `smtps://` for
 * TLS from the start); otherwise the mail is written to the log.
 */
export function createMailer(smtpUrl: string | undefined, from: string): Mailer {
  if (!smtpUrl) {
    const logger = new Logger('mail');
    return async (mail) => {
      // At warn: the service's log shows warnings and errors by default, and this mail needs a reader.
      logger.warn(`mail to ${mail.to} (no PLATFORM_SMTP_URL, so written here): ${mail.subject}\n${mail.text}`);
    };
  }
  // Loaded only when an SMTP server is set: every start would pay for its modules otherwise.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createTransport } = require('nodemailer') as { createTransport: typeof CreateTransport };
  // A mail server that does not answer must not hold a reminder pass (or a shutdown) for minutes.
  const transport = createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof createTransport>[0]);
  return async (mail) => {
    await transport.sendMail({ from, ...mail });
  };
}
