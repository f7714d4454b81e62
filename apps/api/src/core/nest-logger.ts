import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Nest's start-up narration (modules loaded, each route mapped): debug, not info. */
const FRAMEWORK_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/**
 * Nest's own lines, and ours written through Nest's `Logger`, in the service's one JSON format
 * (issue 15): each goes to the same pino logger as Fastify's request lines, with Nest's context.
 * Calls come as Nest writes them, `(message, ...params, context?)`; ours also as
 * `(fields, message, context?)` (an object first: its fields go on the line, e.g. traceId, err).
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    // Nest logs a failed listen before rejecting `listen`; the start reports it as one line of its
    // own (main.ts, ListenError: "PORT=3000: the port is already in use", "HOST=...: the name does
    // not resolve"), so this copy goes to debug.
    const listenFailed = params[params.length - 1] === 'NestApplication' && /^Error: (listen|getaddrinfo) E[A-Z]+/.test(String(message));
    this.write(listenFailed ? 'debug' : 'error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const strings = params.filter((p): p is string => typeof p === 'string');
    // Nest puts the context last; a stack Nest passes with an error comes before it.
    const context = strings.length > 0 ? strings[strings.length - 1] : undefined;
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      const text = strings.length > 1 ? strings[0] : context;
      this.logger[level]({ ...(message as Record<string, unknown>), ...(strings.length > 1 && context ? { context } : {}) }, text ?? '');
      return;
    }
    const fields: Record<string, unknown> = context ? { context } : {};
    if (message instanceof Error) fields.err = message;
    else if (level === 'error' && strings.length > 1) fields.stack = strings[0];
    this.logger[level](fields, message instanceof Error ? message.message : String(message));
  }
}
