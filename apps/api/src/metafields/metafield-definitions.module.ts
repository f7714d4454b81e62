import { Module } from '@nestjs/common';
import { MetafieldDefinitionsController } from './metafield-definitions.controller';
import { MetafieldDefinitionsRepository } from './metafield-definitions.repository';
import { MetafieldDefinitionsService } from './metafield-definitions.service';
import { MetaobjectsRepository } from './metaobjects.repository';
import { MetaobjectsService } from './metaobjects.service';
import { OperatorMetafieldDefinitionsController } from './operator-metafield-definitions.controller';
import { StoresModule } from '../stores/stores.module';

/** Metafield definitions and metaobjects (decisions §8.1-§8.7, §8.14), in the Admin and operator APIs. */
@Module({
  imports: [StoresModule],
  controllers: [MetafieldDefinitionsController, OperatorMetafieldDefinitionsController],
  providers: [MetafieldDefinitionsRepository, MetafieldDefinitionsService, MetaobjectsRepository, MetaobjectsService],
  exports: [MetafieldDefinitionsService, MetaobjectsService],
})
export class MetafieldDefinitionsModule {}
