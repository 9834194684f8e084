import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { StopHook } from '../../shared/input';
import { ErrorType } from '../../shared/errors';

/**
 * Stop hooks from `<workdir>/.agent/settings.json`, in our format (`{"stopHooks":[{"command":…}]}`)
 * or Claude Code's (`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":…,"timeout":s}]}]}}`).
 * Read once at the start: a command the model writes cannot add hooks to its own session.
 */
export async function readSettingsStopHooks(workdir: string): Promise<StopHook[]> {
  let settings: {
    stopHooks?: { command?: unknown; timeoutMs?: unknown }[];
    hooks?: { Stop?: { hooks?: { type?: string; command?: unknown; timeout?: unknown }[] }[] };
  };
  try {
    settings = JSON.parse(await readFile(join(workdir, '.agent', 'settings.json'), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw ApplicationFailure.nonRetryable(`.agent/settings.json is not valid JSON: ${(error as Error).message}`, ErrorType.InvalidWorkflowInput);
  }
  const hooks: StopHook[] = [];
  for (const hook of settings.stopHooks ?? []) {
    if (typeof hook.command === 'string' && hook.command) hooks.push({ command: hook.command, ...(typeof hook.timeoutMs === 'number' ? { timeoutMs: hook.timeoutMs } : {}) });
  }
  for (const group of settings.hooks?.Stop ?? []) {
    for (const hook of group.hooks ?? []) {
      if ((hook.type ?? 'command') === 'command' && typeof hook.command === 'string' && hook.command) {
        hooks.push({ command: hook.command, ...(typeof hook.timeout === 'number' ? { timeoutMs: hook.timeout * 1000 } : {}) });
      }
    }
  }
  return hooks;
}
