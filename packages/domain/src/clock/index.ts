export * from './create-clock';
