/**
 * One `durable-agent` command, as the table in main.ts lists it. A command file imports only
 * what parsing its arguments needs at load time (node:util, the usage error, types): main.ts
 * loads every command file to print the usage, and `--help` must stay instant. What a command
 * does (the Temporal client, the worker, the model SDK) it imports when it runs.
 */
export interface Command {
  /** The word after `durable-agent`. */
  readonly name: string;
  /** Its lines under "Usage:", exactly as printed (indented, descriptions aligned with the others'). */
  readonly usage: string;
  /** A section printed after the list of commands (run's options and environment). */
  readonly details?: string;
  /**
   * Resolves with the exit code. Wrong arguments throw a UsageError (exit 2, with the usage
   * unless it says otherwise); any other error is printed as one line (exit 1).
   */
  run(args: string[], environment: NodeJS.ProcessEnv): Promise<number>;
}
