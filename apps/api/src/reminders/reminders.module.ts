import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/tokens.module';
import { DueRemindersReadModel } from './due-reminders.read-model';
import { TokenReminderWorker } from './token-reminders.worker';

/** Private tokens' expiry reminders, 30 days before (decisions §5.4). */
@Module({ imports: [TokensModule], providers: [DueRemindersReadModel, TokenReminderWorker] })
export class RemindersModule {}
