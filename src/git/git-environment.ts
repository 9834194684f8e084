/**
 * The configuration every git call of the worker runs with. A worker often runs as root, beside
 * sessions that can write anything in their workdir: nothing git reads may come from a place a
 * session (or a stray config on the worker host) could have changed. So:
 *
 * - no system config (`GIT_CONFIG_NOSYSTEM`) and no user config (`GIT_CONFIG_GLOBAL=/dev/null`),
 *   except that the calls that reach a remote (clone, push) read the operator's
 *   `AGENT_GIT_CONFIG` as their global config (credential helpers, `url.<base>.insteadOf`,
 *   `http.*`): the operator's file, never the session's;
 * - no `GIT_*` variable of the worker's environment (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`,
 *   `GIT_EXTERNAL_DIFF`, `GIT_ALLOW_PROTOCOL`, `GIT_ASKPASS`…) but the SSH command the operator
 *   chose (`GIT_SSH_COMMAND`, `GIT_SSH`, `GIT_SSH_VARIANT`); no askpass program, no prompt;
 * - on the command line (which wins over any config file): no hooks, no fsmonitor, no
 *   attributes file (so no filter or diff driver is ever named), no submodule recursion, real
 *   symlinks, and only the transports we mean (`protocol.allow=never` but https, http, ssh, git
 *   and file: no `ext::`, no `fd::`, no remote helper a URL could name, unless the operator's
 *   `AGENT_GIT_CONFIG` allows that helper by name with `protocol.<name>.allow`);
 * - no repository discovery: every call names `--git-dir`, or runs in a directory of the
 *   worker's own (made before any session existed) with `GIT_CEILING_DIRECTORIES` just above it.
 *
 * `diff.external` and filter drivers are nowhere set: not on the command line (git would run an
 * empty command), but no config we read can name one (ours is the clone's own, written by us),
 * and the worker never runs `git diff` or reads a work tree. Our git directories belong to the
 * worker's user, so no `safe.directory` is needed; a `file://` remote owned by another user needs
 * `safe.directory` in `AGENT_GIT_CONFIG`, as the operator decides.
 */
import { dirname } from 'node:path';

/** Settings given as `-c` to every call: the command line wins over every config file. */
export const CLEAN_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  'core.symlinks=true',
  'submodule.recurse=false',
  'protocol.allow=never',
  // A config's `protocol.<name>.allow` wins over `protocol.allow`: these two run commands, never.
  'protocol.ext.allow=never',
  'protocol.fd.allow=never',
  'protocol.https.allow=always',
  'protocol.http.allow=always',
  'protocol.ssh.allow=always',
  'protocol.git.allow=always',
  'protocol.file.allow=always',
  'maintenance.auto=false',
  'gc.auto=0',
];

/** What our calls keep of the worker's `GIT_*` variables: how the operator reaches SSH remotes. */
const KEPT_GIT_VARIABLES = new Set(['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_SSH_VARIANT']);

/** Variables that would run a program to ask for a password, or change what ssh asks. */
const DROPPED_VARIABLES = new Set(['SSH_ASKPASS', 'SSH_ASKPASS_REQUIRE']);

/** The commits' author and committer (the session's changes are the agent's), and the reflog's. */
export const IDENTITY = {
  GIT_AUTHOR_NAME: 'durable-agent',
  GIT_AUTHOR_EMAIL: 'durable-agent@localhost',
  GIT_COMMITTER_NAME: 'durable-agent',
  GIT_COMMITTER_EMAIL: 'durable-agent@localhost',
};

export interface EnvironmentOptions {
  /** The directory the call runs in: one of the worker's own. */
  cwd: string;
  /** `AGENT_GIT_CONFIG` for calls that reach a remote; /dev/null otherwise. */
  globalConfig?: string;
  /** Whether that config names its own `core.sshCommand` (then our default does not hide it). */
  configuresSsh?: boolean;
}

/** The environment of one git call, from the worker's. */
export function gitEnvironment(
  worker: NodeJS.ProcessEnv,
  { cwd, globalConfig, configuresSsh }: EnvironmentOptions,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(worker)) {
    if (value === undefined || DROPPED_VARIABLES.has(name)) continue;
    if (name.startsWith('GIT_') && !KEPT_GIT_VARIABLES.has(name)) continue;
    environment[name] = value;
  }
  Object.assign(environment, IDENTITY, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: globalConfig ?? '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    // Discovery, should a call ever go looking, stops at the directory it runs in.
    GIT_CEILING_DIRECTORIES: dirname(cwd),
  });
  // ssh must not ask either: the worker's own GIT_SSH_COMMAND, or the config's core.sshCommand, wins.
  if (!environment.GIT_SSH_COMMAND && !environment.GIT_SSH && !configuresSsh)
    environment.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes';
  return environment;
}

/** The arguments before git's subcommand: the clean config, then where our repository is. */
export function gitPrefix(gitDir: string | undefined): string[] {
  return [
    '--no-pager',
    ...CLEAN_CONFIG.flatMap((setting) => ['-c', setting]),
    ...(gitDir ? [`--git-dir=${gitDir}`] : []),
  ];
}
