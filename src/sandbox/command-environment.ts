/**
 * The environment of a command the model (or a hook) runs: an allow-list, never the worker's own
 * variables (its API key, cloud credentials, tokens, agent sockets). What a command needs beyond
 * these comes from the session (`sandboxEnv`) or the worker's `AGENT_SANDBOX_PASS_ENV`.
 */
const ALWAYS = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR'];
const LOCALE = /^LC_[A-Z]+$/;
/** Nothing may wait for a pager or an editor, and colours are plain: commands run unattended. */
const UNATTENDED = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', NO_COLOR: '1', CI: '1' };

export interface CommandEnvironmentOptions {
  /** Names whose values come from the worker's environment (`AGENT_SANDBOX_PASS_ENV`). */
  passNames?: readonly string[];
  /** Variables the session sets (input `sandboxEnv`). */
  extra?: Readonly<Record<string, string>>;
  /** Values that replace the worker's (inside the sandbox: its own PATH and HOME). */
  overrides?: Readonly<Record<string, string>>;
}

export function commandEnvironment(
  source: NodeJS.ProcessEnv = process.env,
  options: CommandEnvironmentOptions = {},
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && (ALWAYS.includes(name) || LOCALE.test(name) || options.passNames?.includes(name)))
      environment[name] = value;
  }
  return { ...environment, ...UNATTENDED, ...options.overrides, ...options.extra };
}

/** What Claude Code names the project's directory in a hook's (and a stdio MCP server's) environment. */
export const PROJECT_DIR_VARIABLE = 'CLAUDE_PROJECT_DIR';

/**
 * The session's sandbox with `CLAUDE_PROJECT_DIR` set to the workdir (after the session's own
 * variables: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py` always names the repository's file).
 * The workdir is bound at its own path inside the sandbox, so the path is the same there.
 */
export function withProjectDir<Session extends { env?: Record<string, string> }>(
  session: Session | undefined,
  workdir: string,
): Session & { env: Record<string, string> } {
  return { ...(session as Session), env: { ...session?.env, [PROJECT_DIR_VARIABLE]: workdir } };
}
