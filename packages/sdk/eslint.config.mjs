import { layered } from '@platform/eslint-config';

// The architecture's rules for this layer (tooling/eslint/index.mjs).
export default layered('sdk');
