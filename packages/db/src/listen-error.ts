/**
 * decisions §12.4: a listen that fails (a HOST that is not this machine's or does not resolve, a PORT
 * in use or privileged) ends the start with one line naming the variables, not a stack trace.
 */
export class ListenError extends Error {}

export function listenError(error: unknown, vars: { host: string; port: string }, host: string, port: number): ListenError | unknown {
  const code = (error as { code?: string } | null)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return new ListenError(`${vars.port}=${port}: the port is already in use on ${host}`);
    case 'EACCES':
      return new ListenError(`${vars.port}=${port}: this process may not listen on that port`);
    case 'EADDRNOTAVAIL':
      return new ListenError(`${vars.host}=${host}: not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new ListenError(`${vars.host}=${host}: the name does not resolve`);
    default:
      return error;
  }
}
