export * from './hmac-sha256';
export * from './sign';
