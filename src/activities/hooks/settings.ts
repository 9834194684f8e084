/**
 * Hooks from the repository's own settings: `.agent/settings.json` (`{"stopHooks":[…]}`) and
 * Claude Code's `hooks` object in any of the files (`{"hooks":{"Stop":[{"hooks":[{"type":"command",…}]}],
 * "PreToolUse":[{"matcher":"Bash","hooks":[…]}], "PostToolUse":[…], "UserPromptSubmit":[…]}}`).
 * They are commands the repository asks to run, so they run only when trusted (input
 * `trustRepoHooks`, or the worker's `AGENT_TRUST_REPO_HOOKS=1`). Read once when the session
 * starts: a command the model writes cannot add hooks to its own session.
 */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { ErrorType } from '../../shared/errors';
import { type StopHook, stopHookSchema } from '../../shared/input';
import { mergeToolHooks, type ToolHooks, toolHooksOf } from '../../shared/hooks';
import { STOP_HOOK_MAX_TIMEOUT_MS } from '../../shared/limits';
import type { Workdir } from '../../workdir/workdir';
import { unreadableReason, WorkdirRefusal } from '../../workdir/workdir-refusal';

/** A settings file larger than this is not read (real ones are a few KB). */
const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;

/** The settings files that can hold hooks, relative to the workdir (Write and Edit guard them too). */
export const SETTINGS_FILES = ['.agent/settings.json', '.claude/settings.json', '.claude/settings.local.json'];

const claudeHookSchema = z.object({
  type: z.literal('command'),
  command: z.string().min(1),
  timeout: z.number().positive().max(STOP_HOOK_MAX_TIMEOUT_MS / 1000).optional(),
});

const groupsSchema = z.array(z.looseObject({ matcher: z.string().optional(), hooks: z.array(claudeHookSchema) })).optional();

/** Only the parts that run commands are read; other settings (permissions, env, other events…) are not ours. */
const settingsSchema = z.looseObject({
  stopHooks: z.array(stopHookSchema).optional(),
  hooks: z.looseObject({ Stop: groupsSchema, PreToolUse: groupsSchema, PostToolUse: groupsSchema, UserPromptSubmit: groupsSchema }).optional(),
});

export interface RepoHooks {
  hooks: StopHook[];
  /** PreToolUse, PostToolUse and UserPromptSubmit hooks, when any file has some. */
  toolHooks?: ToolHooks;
  /** Files that hold hooks, and how many: what the transcript says was found and not run. */
  found: string[];
  /** Files that are there but cannot be read as settings (a FIFO, a link leading out): skipped, trusted or not. */
  unreadable: string[];
}

export async function readRepoHooks(workdir: Workdir): Promise<RepoHooks> {
  const hooks: StopHook[] = [];
  const found: string[] = [];
  const unreadable: string[] = [];
  let toolHooks: ToolHooks | undefined;
  for (const file of SETTINGS_FILES) {
    const settings = await readSettings(workdir, file).catch((error: unknown) => {
      if (!(error instanceof WorkdirRefusal)) throw error;
      unreadable.push(`${file} (${unreadableReason(error)})`);
      return undefined;
    });
    if (!settings) continue;
    const before = hooks.length;
    hooks.push(...(settings.stopHooks ?? []));
    for (const group of settings.hooks?.Stop ?? []) {
      for (const hook of group.hooks) hooks.push({ command: hook.command, ...(hook.timeout !== undefined ? { timeoutMs: hook.timeout * 1000 } : {}) });
    }
    const fileToolHooks = toolHooksOf(settings.hooks);
    if (fileToolHooks) toolHooks = mergeToolHooks(toolHooks, fileToolHooks);
    const counts = [plural(hooks.length - before, 'stop hook'), plural(countHooks(fileToolHooks), 'tool hook')].filter(Boolean);
    if (counts.length) found.push(`${file} (${counts.join(', ')})`);
  }
  return { hooks, found, unreadable, ...(toolHooks ? { toolHooks } : {}) };
}

function countHooks(hooks: ToolHooks | undefined): number {
  return Object.values(hooks ?? {}).reduce((sum, groups) => sum + groups.reduce((count, group) => count + group.hooks.length, 0), 0);
}

const plural = (count: number, noun: string) => (count === 0 ? '' : `${count} ${noun}${count > 1 ? 's' : ''}`);

/**
 * A settings file, validated; errors name the file and the field, never its contents (they would
 * enter history). One that is not a regular file inside the workdir (a FIFO, a link leading out)
 * is a WorkdirRefusal: never opened, and skipped by the caller.
 */
async function readSettings(workdir: Workdir, file: string): Promise<z.infer<typeof settingsSchema> | undefined> {
  let text: string;
  try {
    const head = await workdir.readHead(file, SETTINGS_FILE_MAX_BYTES + 1);
    if (head === undefined) return undefined;
    if (head.size > SETTINGS_FILE_MAX_BYTES) throw new WorkdirRefusal(`${file} is too large`, 'larger than 1 MiB');
    text = head.data.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    if (error instanceof WorkdirRefusal) throw error;
    throw ApplicationFailure.nonRetryable(`${file} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, ErrorType.InvalidWorkflowInput);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw ApplicationFailure.nonRetryable(`${file} is not valid JSON`, ErrorType.InvalidWorkflowInput);
  }
  const parsed = settingsSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(settings)'}: ${issue.message}`);
    throw ApplicationFailure.nonRetryable(`${file}: ${problems.join('; ')}`, ErrorType.InvalidWorkflowInput);
  }
  return parsed.data;
}
