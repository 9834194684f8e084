/**
 * The escapes of issue 10's security review (and a few more), as a scripted model's tool calls.
 * Each attempt says what a bubblewrap worker must do with it and what an unconfined one
 * (`AGENT_SANDBOX=none`) allows: the README's table of what the sandbox isolates follows it.
 */
import { reply, text, toolUse, type FakeBlock, type FakeReply } from './fake-anthropic';

/** What the attempts aim at: the worker and everything outside the session's workdir. */
export interface Targets {
  workerPid: number;
  workerHome: string;
  contentDir: string;
  otherWorkdir: string;
  outsideDir: string;
  /** Distinct arguments of `sleep`, so the host can look for the processes by name. */
  sleeps: { setsid: number; nohup: number; timedOut: number };
  tag: string;
}

/** `contained`: refused, or it ran without reaching its target. `escapes`: an unconfined host lets it through. */
export type Outcome = 'contained' | 'escapes';

export interface Attempt {
  id: string;
  /** One line for the README's table. */
  what: string;
  call: FakeBlock;
  outcome: { bwrap: Outcome; none: Outcome | 'not run' };
}

/** Waits inside the command until its daemon runs (after `setsid`), so the call ends only then. */
const running = (seconds: number) => `until pgrep -xf "sleep ${seconds}" >/dev/null; do sleep 0.05; done`;

const bash = (command: string, timeout?: number) => ({
  command: `${command} 2>&1; true`,
  ...(timeout ? { timeout } : {}),
});

/** Attempts in turns: calls of one turn run together (file tools) or one after another (Bash). */
export function escapeTurns(t: Targets): Attempt[][] {
  const attempt = (
    id: string,
    what: string,
    name: string,
    input: unknown,
    none: Outcome | 'not run' = 'contained',
  ): Attempt => ({
    id,
    what,
    call: toolUse(name, input, `toolu_${id}`),
    outcome: { bwrap: 'contained', none },
  });
  return [
    [
      attempt('glob_parent_env', 'Glob `../**/.env`', 'Glob', { pattern: '../**/.env' }),
      attempt('glob_etc', 'Glob `/etc/pass*`', 'Glob', { pattern: '/etc/pass*' }),
      attempt('glob_braces', 'Glob `{..,src}/**` (`..` in braces)', 'Glob', { pattern: '{..,src}/**' }),
      attempt('grep_glob_etc', 'Grep with `glob: "/etc/passwd"`', 'Grep', {
        pattern: 'root',
        glob: '/etc/passwd',
        output_mode: 'content',
      }),
      attempt('grep_other_session', "Grep in another session's workdir", 'Grep', {
        pattern: 'SECRET',
        path: t.otherWorkdir,
        output_mode: 'content',
      }),
      attempt('read_worker_environ', 'Read `/proc/<worker>/environ`', 'Read', {
        file_path: `/proc/${t.workerPid}/environ`,
      }),
      attempt('read_content_store', 'Read a file of the content store', 'Read', {
        file_path: `${t.contentDir}/objects`,
      }),
      attempt('read_nul_path', 'Read a path with a NUL byte', 'Read', { file_path: 'src/a\u0000.ts' }),
    ],
    [
      attempt(
        'bash_worker_environ',
        'Bash `cat /proc/<worker>/environ`',
        'Bash',
        bash(`cat /proc/${t.workerPid}/environ | tr '\\0' '\\n'`),
        'escapes',
      ),
    ],
    [attempt('bash_env', 'Bash `env` (worker secrets in the environment)', 'Bash', bash('env'))],
    [
      attempt(
        'bash_home_credentials',
        "Bash reads the worker's `$HOME` credentials",
        'Bash',
        bash(`cat ${t.workerHome}/.aws/credentials`),
        'escapes',
      ),
    ],
    [
      attempt(
        'bash_content_store',
        'Bash reads the content store (every session)',
        'Bash',
        bash(`grep -r VICTIM ${t.contentDir} | head -5`),
        'escapes',
      ),
    ],
    [
      attempt(
        'bash_other_session',
        "Bash reads another session's workdir",
        'Bash',
        bash(`cat ${t.otherWorkdir}/secret.txt`),
        'escapes',
      ),
    ],
    [
      attempt(
        'bash_write_outside',
        'Bash writes outside the workdir',
        'Bash',
        bash(`echo pwned > ${t.outsideDir}/pwned-${t.tag}`),
        'escapes',
      ),
    ],
    [
      attempt(
        'bash_kill_worker',
        'Bash `kill -9 <worker>`',
        'Bash',
        bash(`kill -9 ${t.workerPid}; echo "kill exit $?"`),
        'not run',
      ),
    ],
    [
      attempt(
        'bash_daemons',
        'Bash leaves `setsid` and `nohup … &` daemons behind',
        'Bash',
        bash(
          `setsid sleep ${t.sleeps.setsid} >/dev/null 2>&1 </dev/null & nohup sleep ${t.sleeps.nohup} >/dev/null 2>&1 & ` +
            `${running(t.sleeps.setsid)}; ${running(t.sleeps.nohup)}; echo started`,
        ),
        'escapes',
      ),
    ],
    [
      attempt(
        'bash_timeout_daemon',
        'Bash times out with a `setsid` child',
        'Bash',
        bash(
          `setsid sleep ${t.sleeps.timedOut} >/dev/null 2>&1 </dev/null & ${running(t.sleeps.timedOut)}; sleep 60`,
          1_000,
        ),
        'escapes',
      ),
    ],
    [
      attempt(
        'bash_prepare',
        'Bash makes FIFOs, a 700 MB sparse file, symlinks out, a catastrophic line',
        'Bash',
        bash(
          `mkfifo p1 p2 p3 p4 p5 && truncate -s 700M disk.img && ln -s ${t.otherWorkdir}/secret.txt leak.txt && ln -s ${t.otherWorkdir} other && ` +
            `printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\\n' > evil.txt && echo ready`,
        ),
      ),
    ],
    [
      ...[1, 2, 3, 4, 5].map((n) =>
        attempt(`read_fifo_${n}`, 'Read of a FIFO (five at once)', 'Read', { file_path: `p${n}` }),
      ),
      attempt('read_sparse', 'Read of a 700 MB sparse binary', 'Read', { file_path: 'disk.img' }),
      attempt('read_symlink_out', 'Read of a symlink to another workdir', 'Read', { file_path: 'leak.txt' }),
      attempt('glob_symlink_dir', 'Glob through a symlinked directory', 'Glob', { pattern: 'other/**' }),
      attempt('grep_symlinks', 'Grep over symlinks to outside', 'Grep', { pattern: 'SECRET', output_mode: 'content' }),
    ],
    [
      attempt('grep_catastrophic', 'Grep `(a+)+$` on a 40-character line', 'Grep', {
        pattern: '(a+)+$',
        path: 'evil.txt',
        output_mode: 'content',
      }),
    ],
    [
      attempt('write_settings_hook', 'Write a hook into `.agent/settings.json` (auto mode)', 'Write', {
        file_path: '.agent/settings.json',
        content: '{"stopHooks":[{"command":"touch hook-ran"}]}',
      }),
    ],
    [
      attempt(
        'bash_symlink_scratch',
        'Bash points `.agent/` outside the workdir',
        'Bash',
        bash(`rm -rf .agent && ln -s ${t.outsideDir} .agent && echo linked`),
      ),
    ],
    [
      attempt('read_spill_through_symlink', 'A large result spilled through the symlinked `.agent/`', 'Read', {
        file_path: 'big.txt',
      }),
    ],
  ];
}

/** The script: one turn per group of attempts, then a final answer. */
export function escapeScript(turns: Attempt[][]): FakeReply[] {
  return [...turns.map((turn) => reply(turn.map((attempt) => attempt.call))), reply([text('Done trying.')])];
}
