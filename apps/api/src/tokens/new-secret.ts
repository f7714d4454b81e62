import { randomBytes } from 'node:crypto';

/** decisions §5.1: an opaque random secret (tokens, codes, links, app secrets): `bytes` random bytes, URL-safe. */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');
