import { Module } from '@nestjs/common';
import { TokenRemindersRepository } from './token-reminders.repository';
import { TokenReminderWorker } from './token-reminders.worker';

/** Private tokens' expiry reminders, 30 days before (decisions §5.4). */
@Module({ providers: [TokenRemindersRepository, TokenReminderWorker] })
export class RemindersModule {}
