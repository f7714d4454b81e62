import { layered } from '@platform/eslint-config';

// src/generated is Prisma's generated client (scripts/generate.mjs); the rest is this layer's.
export default [{ ignores: ['src/generated/**'] }, ...layered('db')];
