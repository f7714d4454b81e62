export * from './normalize-feedback-state';
export * from './check-feedback-messages';
export * from './decide-feedback-staleness';
export * from './validate-feedback';
