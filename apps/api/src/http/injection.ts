/** Injection token of the rate limiter the bootstrap makes before Nest (http.module.ts provides it). */
export const RATE_LIMITER = Symbol('RATE_LIMITER');
