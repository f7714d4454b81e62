import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EXPIRY_REMINDER_DAYS, formatInZone, reminderRetryDelayMs } from '@platform/domain';
import { ClockService } from '../core/clock.service';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { createMailer, type Mailer } from './mailer';
import { TokensService } from '../tokens/tokens.service';
import { DueRemindersReadModel, type DueReminder } from './due-reminders.read-model';

const BATCH = 100;

/**
 * decisions §5.4: 30 days before a private app's token expires, the store's owner gets one e-mail
 * (SMTP when PLATFORM_SMTP_URL is set, else the log), and the sending is recorded on the token. The
 * record is claimed before the mail goes out, so several processes never send one reminder twice
 * (at most once: a process that dies between the claim and the mail loses that reminder); a refused
 * sending gives the claim back, to be tried again after a growing pause.
 */
@Injectable()
export class TokenReminderWorker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('token-reminders');
  private readonly mailer: Mailer;
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  private running: Promise<number> | undefined;

  constructor(
    private readonly reminders: DueRemindersReadModel,
    private readonly tokens: TokensService,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
  ) {
    this.mailer = createMailer(config.smtpUrl, `Platform <no-reply@${config.baseDomain}>`);
  }

  onModuleInit(): void {
    if (this.config.tokenReminderIntervalMs > 0) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass over the reminders due now; returns how many were sent. Polling calls it; tests may too. */
  runOnce(): Promise<number> {
    this.running = this.pass();
    return this.running;
  }

  private schedule(): void {
    if (this.closing) return;
    this.timer = setTimeout(() => {
      this.runOnce()
        .catch((error: unknown) => this.logger.warn(`reminder pass failed: ${(error as Error).message}`))
        .finally(() => this.schedule());
    }, this.config.tokenReminderIntervalMs);
    this.timer.unref();
  }

  private async pass(): Promise<number> {
    await this.clock.sync();
    const now = this.clock.now();
    const dueBefore = new Date(now.getTime() + EXPIRY_REMINDER_DAYS * 86_400_000);
    let sent = 0;
    for (const reminder of await this.reminders.due(now, dueBefore, BATCH)) {
      if (this.closing) break;
      if (!(await this.tokens.claimReminder(reminder.tokenId, now))) continue;
      try {
        await this.mailer(this.mail(reminder));
        sent++;
      } catch (error) {
        const failures = reminder.failures + 1;
        await this.tokens.unclaimReminder(reminder.tokenId, new Date(now.getTime() + reminderRetryDelayMs(failures)));
        this.logger.warn(
          `expiry reminder for token ${reminder.tokenId} not sent (${failures} time(s)), tried again later: ${(error as Error).message}`,
        );
      }
    }
    return sent;
  }

  private mail(reminder: DueReminder) {
    const expires = formatInZone(reminder.expiresAt, reminder.storeTimezone);
    return {
      to: reminder.storeEmail,
      subject: `The access token of "${reminder.appName}" expires on ${expires.slice(0, 10)}`,
      text:
        `The access token of the private app "${reminder.appName}" on your store ${reminder.storeName} (${reminder.storeHandle}) ` +
        `expires at ${expires}.\n\nRefresh it in the merchant admin (Apps, Develop apps, the app, API credentials) before then; ` +
        `after a refresh the current token stays valid 5 more minutes.\n`,
    };
  }
}
