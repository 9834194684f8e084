/**
 * Hooks from the repository's own settings: `.agent/settings.json` (`{"stopHooks":[…]}`) and
 * Claude Code's `.claude/settings.json` (`{"hooks":{"Stop":[{"hooks":[{"type":"command",…}]}]}}`).
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
import { STOP_HOOK_MAX_TIMEOUT_MS } from '../../shared/limits';

/** The settings files that can hold hooks, relative to the workdir (Write and Edit guard them too). */
export const SETTINGS_FILES = ['.agent/settings.json', '.claude/settings.json', '.claude/settings.local.json'];

const claudeHookSchema = z.object({
  type: z.literal('command'),
  command: z.string().min(1),
  timeout: z.number().positive().max(STOP_HOOK_MAX_TIMEOUT_MS / 1000).optional(),
});

/** Only the parts that run commands are read; other settings (permissions, env…) are not ours. */
const settingsSchema = z.looseObject({
  stopHooks: z.array(stopHookSchema).optional(),
  hooks: z.looseObject({ Stop: z.array(z.looseObject({ hooks: z.array(claudeHookSchema) })).optional() }).optional(),
});

export interface RepoHooks {
  hooks: StopHook[];
  /** Files that hold hooks, and how many: what the transcript says was found and not run. */
  found: string[];
}

export async function readRepoHooks(workdir: string): Promise<RepoHooks> {
  const hooks: StopHook[] = [];
  const found: string[] = [];
  for (const file of SETTINGS_FILES) {
    const settings = await readSettings(workdir, file);
    if (!settings) continue;
    const before = hooks.length;
    hooks.push(...(settings.stopHooks ?? []));
    for (const group of settings.hooks?.Stop ?? []) {
      for (const hook of group.hooks) hooks.push({ command: hook.command, ...(hook.timeout !== undefined ? { timeoutMs: hook.timeout * 1000 } : {}) });
    }
    if (hooks.length > before) found.push(`${file} (${hooks.length - before} stop hook${hooks.length - before > 1 ? 's' : ''})`);
  }
  return { hooks, found };
}

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
