import config from '@platform/eslint-config';

// src/generated is Prisma's generated client (scripts/generate.mjs).
export default [{ ignores: ['src/generated/**'] }, ...config];
