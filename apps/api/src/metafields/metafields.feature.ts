import type { Provider, Type } from '@nestjs/common';

/** Metafield values, the bulk set and the background re-check (decisions §8.9, §8.12): registered by AppModule. */
export const metafieldsFeature: { controllers: Type[]; providers: Provider[] } = {
  controllers: [],
  providers: [],
};
