export * from './define-errors';
export * from './join-issues';
