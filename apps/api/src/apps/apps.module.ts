import { Module } from '@nestjs/common';
import { StoresModule } from '../stores/stores.module';
import { TokensModule } from '../tokens/tokens.module';
import { AppRemovalSteps } from './app-removal';
import { AppsRepository } from './apps.repository';
import { AppsService } from './apps.service';

/** Apps and their installations (decisions §5, §10); other features add what leaves with an app (AppRemovalSteps). */
@Module({
  imports: [StoresModule, TokensModule],
  providers: [AppsRepository, AppsService, AppRemovalSteps],
  exports: [AppsService, AppRemovalSteps],
})
export class AppsModule {}
