import type { Provider, Type } from '@nestjs/common';
import { MetafieldDefinitionsController } from './metafield-definitions.controller';
import { MetafieldDefinitionsRepository } from './metafield-definitions.repository';
import { MetafieldDefinitionsService } from './metafield-definitions.service';
import { MetaobjectsRepository } from './metaobjects.repository';
import { MetaobjectsService } from './metaobjects.service';
import { OperatorMetafieldDefinitionsController } from './operator-metafield-definitions.controller';

/** Metafield definitions, metaobjects (decisions §8.1-§8.7, §8.14): registered by AppModule. */
export const metafieldDefinitionsFeature: { controllers: Type[]; providers: Provider[] } = {
  controllers: [MetafieldDefinitionsController, OperatorMetafieldDefinitionsController],
  providers: [MetafieldDefinitionsRepository, MetafieldDefinitionsService, MetaobjectsRepository, MetaobjectsService],
};
