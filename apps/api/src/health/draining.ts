/**
 * Set when the process has been asked to stop (SIGTERM): /readyz answers 503 from then on, so a
 * balancer still checking it takes the replica out while in-flight requests finish (main.ts).
 */
export const DRAINING = { on: false };
