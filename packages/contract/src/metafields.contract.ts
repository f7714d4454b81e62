import { adminRouterOptions, c, operatorRouterOptions } from './router';

/** Admin API: metafield values on products and the bulk set (decisions §8.9). */
export const metafieldsContract = c.router({}, adminRouterOptions);

/** Operator API: values and their re-check verdicts (decisions §8.12, §10). */
export const operatorMetafieldsContract = c.router({}, operatorRouterOptions);
