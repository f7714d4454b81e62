export * from './encode-cursor';
