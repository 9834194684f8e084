/**
 * Hooks from the repository's own settings: `.agent/settings.json` (`{"stopHooks":[…]}`) and
 * Claude Code's `hooks` object in any of the files (`{"hooks":{"Stop":[{"hooks":[{"type":"command",…}]}],
 * "PreToolUse":[{"matcher":"Bash","hooks":[…]}], "PostToolUse":[…], "UserPromptSubmit":[…]}}`).
 * They are commands the repository asks to run, so they run only when trusted (input
 * `trustRepoHooks`, or the worker's `AGENT_TRUST_REPO_HOOKS=1`). Read once when the session
 * starts: a command the model writes cannot add hooks to its own session.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { ErrorType } from '../../shared/errors';
import { type StopHook, stopHookSchema } from '../../shared/input';
import { mergeToolHooks, type ToolHooks, toolHooksOf } from '../../shared/hooks';
import { STOP_HOOK_MAX_TIMEOUT_MS } from '../../shared/limits';

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
}

export async function readRepoHooks(workdir: string): Promise<RepoHooks> {
  const hooks: StopHook[] = [];
  const found: string[] = [];
  let toolHooks: ToolHooks | undefined;
  for (const file of SETTINGS_FILES) {
    const settings = await readSettings(workdir, file);
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
  return { hooks, found, ...(toolHooks ? { toolHooks } : {}) };
}

function countHooks(hooks: ToolHooks | undefined): number {
  return Object.values(hooks ?? {}).reduce((sum, groups) => sum + groups.reduce((count, group) => count + group.hooks.length, 0), 0);
}

const plural = (count: number, noun: string) => (count === 0 ? '' : `${count} ${noun}${count > 1 ? 's' : ''}`);

/** A settings file, validated; errors name the file and the field, never its contents (they would enter history). */
async function readSettings(workdir: string, file: string): Promise<z.infer<typeof settingsSchema> | undefined> {
  let text: string;
  try {
    text = await readFile(join(workdir, file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
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
