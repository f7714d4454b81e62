export { findDuplicateKey } from './find-duplicate-key';
