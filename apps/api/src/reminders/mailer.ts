import { Logger } from '@nestjs/common';
import { createTransport } from 'nodemailer';

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
