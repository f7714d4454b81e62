import { fileURLToPath } from 'node:url';
import { layered } from '@platform/eslint-config';

// The architecture's rules for this layer (tooling/eslint/index.mjs), and the owners of the tables
// (packages/db/prisma/models.prisma, `/// owner:` lines) kept room by room under src/.
export default layered('api', {
  tables: {
    schema: fileURLToPath(new URL('../../packages/db/prisma/models.prisma', import.meta.url)),
    sources: fileURLToPath(new URL('./src', import.meta.url)),
  },
});
