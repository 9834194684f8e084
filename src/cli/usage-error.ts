/** A command's arguments are wrong: the CLI prints the message (and its usage) and exits 2. */
export class UsageError extends Error {
  /** showUsage false: a refusal that one line explains (a setting to give), not a misspelt command. */
  constructor(
    message: string,
    readonly showUsage = true,
  ) {
    super(message);
  }
}
