import type { ChildProcess } from 'node:child_process';

export declare const REPO_ROOT: string;
export declare const API_MAIN: string;
export declare const SENDER_MAIN: string;
/** Node options that make a process whose stdin is a pipe from its parent end with that parent (with-parent.cjs). */
export declare const WITH_PARENT: string[];
/** `fork(module, args)` for a benchmark's helper: stdout and stderr inherited (or stdout ignored), IPC, ended with this process. */
export declare function forkWithParent(
  module: string,
  args?: string[],
  options?: { env?: NodeJS.ProcessEnv; stdout?: 'inherit' | 'ignore' },
): ChildProcess;
/**
 * Where the manual clock of a test deployment starts (PLATFORM_CLOCK_START): a fixed instant, so no
 * expectation about versions, expiries or dates depends on the day the tests run.
 */
export declare const TEST_CLOCK_START: string;
/** The line the API prints once it listens, its origin captured. */
export declare const API_BASE_URL: RegExp;

export interface ProgramOptions {
  /** Beside PATH, the whole environment; a variable set to undefined is left out. */
  env?: Record<string, string | undefined>;
  /** Arguments for Node before the program (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Streams that go to this process's own instead of being captured. */
  inherit?: ('stdout' | 'stderr')[];
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Program {
  child: ChildProcess;
  pid: number;
  /** Resolves once the process has exited and all its output has been read. */
  exited: Promise<Exit>;
  stdout(): string;
  stderr(): string;
  /** stdout and stderr as they arrived. */
  output(): string;
  /** Resolves with the first match in the output so far or to come; rejects if the process exits first. */
  waitFor(pattern: string): Promise<[string]>;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resident memory of the process, in bytes (Linux /proc). */
  rss(): number;
  /** CPU time the process has used, user + system, in ms (in 10 ms steps). */
  cpuMs(): number;
  /** Sends `signal` (SIGTERM) unless it has exited; resolves with its exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

export interface ApiProgram extends Program {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
}

export declare function startProgram(main: string, options?: ProgramOptions): Program;
export declare function startApi(env?: Record<string, string | undefined>, options?: Omit<ProgramOptions, 'env'>): Promise<ApiProgram>;
