/**
 * Hooks from the repository's own settings: `.agent/settings.json` (`{"stopHooks":[…]}`) and
 * Claude Code's `hooks` object in any of the files (`{"hooks":{"Stop":[{"hooks":[{"type":"command",…}]}],
 * "PreToolUse":[{"matcher":"Bash","hooks":[…]}], "PostToolUse":[…], "UserPromptSubmit":[…]}}`).
 * They are commands the repository asks to run, so they run only when trusted (input
 * `trustRepoHooks`, or the worker's `AGENT_TRUST_REPO_HOOKS=1`). Read once when the session
 * starts: a command the model writes cannot add hooks to its own session.
 *
 * A repository's file never fails a session: one that cannot be read as JSON is skipped whole
 * (`unreadable`), and in one that can, each entry that cannot run is skipped (`skipped`, see
 * settings-entries.ts) while the rest runs.
 */
import { mergeToolHooks, type SkippedSetting, type ToolHooks } from '../../shared/hooks';
import type { StopHook } from '../../shared/hooks';
import type { Workdir } from '../../workdir/workdir';
import { unreadableReason, WorkdirRefusal } from '../../workdir/workdir-refusal';
import { isEntries, settingsEntries } from './settings-entries';
import { readPermissions } from './settings-permissions';
import type { SettingsPermissions } from '../../shared/permissions';

/** A settings file larger than this is not read (real ones are a few KB). */
const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;
/** Skipped entries listed at most (a hostile file could hold thousands; they enter history). */
const SKIPPED_LISTED_MAX = 50;

/** The settings files that can hold hooks and permissions, relative to the workdir (Write and Edit guard them too). */
export const SETTINGS_FILES = ['.agent/settings.json', '.claude/settings.json', '.claude/settings.local.json'];

export interface RepoHooks {
  hooks: StopHook[];
  /** PreToolUse, PostToolUse and UserPromptSubmit hooks, when any file has some. */
  toolHooks?: ToolHooks;
  /** Files that hold hooks, and how many: what the transcript says was found and not run. */
  found: string[];
  /** Files there that cannot be read as settings (a FIFO, a link leading out, not JSON): skipped, trusted or not. */
  unreadable: string[];
  /** Entries of the readable files that cannot run, and why (listed when trusted). */
  skipped: SkippedSetting[];
  /** Each file's `permissions`, when any has some (every usable rule: which apply depends on trust, see trustedPermissions). */
  permissions?: SettingsPermissions[];
}

export async function readRepoHooks(workdir: Workdir): Promise<RepoHooks> {
  const result: RepoHooks = { hooks: [], found: [], unreadable: [], skipped: [] };
  const permissions: SettingsPermissions[] = [];
  let toolHooks: ToolHooks | undefined;
  for (const file of SETTINGS_FILES) {
    const json = await readSettingsJson(workdir, file);
    if (json === undefined) continue;
    if (typeof json === 'string') {
      result.unreadable.push(`${file} (${json})`);
      continue;
    }
    const entries = settingsEntries(file, json);
    if (json.permissions !== undefined) {
      const read = readPermissions(file, json.permissions, (path, reason) =>
        entries.skipped.push({ file, path, reason }),
      );
      if (read) permissions.push(read);
    }
    result.hooks.push(...entries.stopHooks);
    if (Object.keys(entries.toolHooks).length) toolHooks = mergeToolHooks(toolHooks, entries.toolHooks);
    result.skipped.push(...entries.skipped);
    const unrunnable = entries.skipped.filter((entry) => /^(hooks|stopHooks)\b/.test(entry.path)).length;
    const counts = [
      plural(entries.stopHooks.length, 'stop hook'),
      plural(countHooks(entries.toolHooks), 'tool hook'),
      unrunnable ? `${unrunnable} hook ${unrunnable > 1 ? 'entries' : 'entry'} that cannot run` : '',
    ].filter(Boolean);
    if (counts.length) result.found.push(`${file} (${counts.join(', ')})`);
  }
  return {
    ...result,
    skipped: listed(result.skipped),
    ...(toolHooks ? { toolHooks } : {}),
    ...(permissions.length ? { permissions } : {}),
  };
}

function listed(skipped: SkippedSetting[]): SkippedSetting[] {
  if (skipped.length <= SKIPPED_LISTED_MAX) return skipped;
  const rest = skipped.length - SKIPPED_LISTED_MAX + 1;
  const summary = { file: '(settings)', path: '', reason: `${rest} more entries skipped, not listed` };
  return [...skipped.slice(0, SKIPPED_LISTED_MAX - 1), summary];
}

function countHooks(hooks: ToolHooks): number {
  return Object.values(hooks)
    .flat()
    .reduce((count, group) => count + group.hooks.length + (group.prompts?.length ?? 0), 0);
}

const plural = (count: number, noun: string) => (count === 0 ? '' : `${count} ${noun}${count > 1 ? 's' : ''}`);

/**
 * A settings file's JSON object; undefined when there is no file; a string saying why when it is
 * there and cannot be read as settings (not a regular file inside the workdir, too large, not a
 * JSON object). Never its contents: the reason enters history.
 */
async function readSettingsJson(workdir: Workdir, file: string): Promise<Record<string, unknown> | string | undefined> {
  let text: string;
  try {
    const head = await workdir.readHead(file, SETTINGS_FILE_MAX_BYTES + 1);
    if (head === undefined) return undefined;
    if (head.size > SETTINGS_FILE_MAX_BYTES) return 'larger than 1 MiB';
    text = head.data.toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (error instanceof WorkdirRefusal) return unreadableReason(error);
    return `could not be read (${code ?? 'error'})`;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  return isEntries(json) ? json : 'not a JSON object';
}
