export { default } from '@platform/eslint-config';
