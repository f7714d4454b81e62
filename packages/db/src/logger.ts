import pino, { type Logger } from 'pino';
import type { LogLevel } from './settings';

/**
 * One log format for both programs (issue 15, one observability story): a JSON line per event with
 * the ISO time, the level's name, the program (`service`: api, webhooks, migrate) and its pid; a
 * line about a request or a delivery also carries its `traceId`.
 */
export function platformLogger(service: 'api' | 'webhooks' | 'migrate', level: LogLevel): Logger {
  return pino({
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
