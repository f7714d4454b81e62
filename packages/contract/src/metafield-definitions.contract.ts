import { adminRouterOptions, c, operatorRouterOptions } from './router';

/** Admin API: metafield definitions (spec "Metafield definition operations", decisions §8.1-§8.7). */
export const metafieldDefinitionsContract = c.router({}, adminRouterOptions);

/** Operator API: merchant view of definitions, metaobject definitions and metaobjects (decisions §8.14, §10). */
export const operatorMetafieldDefinitionsContract = c.router({}, operatorRouterOptions);
