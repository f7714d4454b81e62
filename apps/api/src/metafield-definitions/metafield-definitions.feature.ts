import type { Provider, Type } from '@nestjs/common';

/** Metafield definitions, metaobjects (decisions §8.1-§8.7, §8.14): registered by AppModule. */
export const metafieldDefinitionsFeature: { controllers: Type[]; providers: Provider[] } = {
  controllers: [],
  providers: [],
};
