import { z } from 'zod';

// decisions §4: every message names its field and reads like the service's own ("metafields[0]:
// must be an object"); zod's defaults ("Expected object, received null", "Required") never reach a
// client of the metafield routes. Internal to the package.

/** A string field with the service's messages when missing or of another JSON type. */
export const text = (what = 'a string') => z.string({ required_error: "can't be blank", invalid_type_error: `must be ${what}` });

/** An object field (or a whole body) with the service's messages when missing or not an object. */
export function objectOf<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape, { required_error: "can't be blank", invalid_type_error: 'must be an object' });
}

/** A query parameter: a repeated one (`?limit=1&limit=2`) arrives as an array, refused by name. */
export const queryText = () => z.string({ invalid_type_error: 'must be given once' });
