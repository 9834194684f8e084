/**
 * A repository's settings file read entry by entry: what the runtime can run (command hooks of
 * the events we run, `prompt` hooks of tool events and prompts, `stopHooks`) is kept, and every
 * other entry (unknown events, `agent`, `http` or `mcp_tool` hooks, unknown fields, malformed
 * entries, `env` and other settings we do not read) is skipped with a reason; `permissions` has its
 * own reader (settings-permissions.ts). Nothing here throws: a repository's file is not ours to
 * refuse, and one bad entry must not cost the good ones. Reasons name the entry, never its contents (they enter history).
 */
import {
  type HookCommand,
  type HookEvent,
  type HookGroup,
  matcherProblem,
  skippedEventReason,
  notRunReason,
  type PromptHook,
  type SkippedSetting,
  type ToolHooks,
} from '../../shared/hooks';
import { type StopHook, stopHookSchema } from '../../shared/hooks';
import { STOP_HOOK_MAX_TIMEOUT_MS } from '../../shared/limits';

export interface SettingsEntries {
  stopHooks: StopHook[];
  toolHooks: ToolHooks;
  skipped: SkippedSetting[];
}

/** Keys that describe the file rather than configure anything: not worth a note. */
const DESCRIPTIVE_KEYS = new Set(['$schema']);
/** Keys read by their own reader (settings-permissions.ts), not skipped here. */
const READ_ELSEWHERE = new Set(['permissions']);
const HOOK_FIELDS = new Set(['type', 'command', 'timeout']);
const PROMPT_HOOK_FIELDS = new Set(['type', 'prompt', 'timeout', 'model']);
const GROUP_FIELDS = new Set(['matcher', 'hooks']);
const MAX_TIMEOUT_S = STOP_HOOK_MAX_TIMEOUT_MS / 1000;
const REASON_MAX_CHARS = 200;

type Entries = Record<string, unknown>;

export const isEntries = (value: unknown): value is Entries =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A key or value as the note shows it: short and printable, whatever the file holds. */
export function shown(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 40 ? `${printable.slice(0, 37)}...` : printable;
}

/** The entries of one parsed settings file (`json` must be an object: the caller checks). */
export function settingsEntries(file: string, json: Entries): SettingsEntries {
  const entries: SettingsEntries = { stopHooks: [], toolHooks: {}, skipped: [] };
  // Capped: a zod message can quote a key of the file, and a key can be long.
  const skip = (path: string, reason: string) => {
    entries.skipped.push({ file, path, reason: reason.slice(0, REASON_MAX_CHARS) });
  };
  for (const [key, value] of Object.entries(json)) {
    if (DESCRIPTIVE_KEYS.has(key) || READ_ELSEWHERE.has(key)) continue;
    if (key === 'hooks') readHooks(value, entries, skip);
    else if (key === 'stopHooks') readStopHooks(value, entries, skip);
    else skip(shown(key), 'a setting durable-agent does not read from repositories (only hooks run)');
  }
  return entries;
}

type Skip = (path: string, reason: string) => void;

function readStopHooks(value: unknown, entries: SettingsEntries, skip: Skip): void {
  if (!Array.isArray(value)) return skip('stopHooks', 'expected a list of {"command", "timeoutMs"}');
  value.forEach((hook: unknown, index) => {
    const parsed = stopHookSchema.safeParse(hook);
    if (parsed.success) entries.stopHooks.push(parsed.data);
    else skip(`stopHooks.${index}`, problems(parsed.error.issues));
  });
}

function readHooks(value: unknown, entries: SettingsEntries, skip: Skip): void {
  if (!isEntries(value)) return skip('hooks', 'expected an object of events ({"PreToolUse": [...], ...})');
  for (const [event, groups] of Object.entries(value)) {
    const path = `hooks.${shown(event)}`;
    const notRun = skippedEventReason(event);
    if (notRun) {
      skip(path, notRun);
      continue;
    }
    if (!Array.isArray(groups)) {
      skip(path, 'expected a list of matcher groups ([{"matcher", "hooks": [...]}])');
      continue;
    }
    groups.forEach((group: unknown, index) => {
      const read = readGroup(`${path}.${index}`, group, skip);
      if (read) addGroup(entries, event as HookEvent, read);
    });
  }
}

function addGroup(entries: SettingsEntries, event: HookEvent, group: HookGroup): void {
  if (event !== 'Stop') entries.toolHooks[event] = [...(entries.toolHooks[event] ?? []), group];
  else {
    // A Stop command is a stop hook; Stop's prompt hooks go with the tool hooks, as in input `hooks`.
    entries.stopHooks.push(...group.hooks);
    if (group.prompts)
      entries.toolHooks.Stop = [...(entries.toolHooks.Stop ?? []), { hooks: [], prompts: group.prompts }];
  }
}

/** A matcher group's runnable commands; undefined when it has none. */
function readGroup(path: string, group: unknown, skip: Skip): HookGroup | undefined {
  if (!isEntries(group)) return void skip(path, 'expected a matcher group ({"matcher", "hooks": [...]})');
  const problem = group.matcher === undefined ? undefined : matcherProblem(group.matcher);
  if (problem) return void skip(`${path}.matcher`, `${problem}: the group is not run`);
  if (!Array.isArray(group.hooks)) {
    return void skip(path, 'no "hooks" list: a command runs only inside "hooks": [{"type": "command", ...}]');
  }
  skipUnknownFields(path, group, GROUP_FIELDS, skip);
  const hooks: HookCommand[] = [];
  const prompts: PromptHook[] = [];
  group.hooks.forEach((hook: unknown, index) => {
    const at = `${path}.hooks.${index}`;
    if (isEntries(hook) && hook.type === 'prompt') {
      const prompt = readPromptHook(at, hook, skip);
      if (prompt) prompts.push(prompt);
    } else {
      const command = readHook(at, hook, skip);
      if (command) hooks.push(command);
    }
  });
  if (!hooks.length && !prompts.length) return undefined;
  return {
    ...(typeof group.matcher === 'string' ? { matcher: group.matcher } : {}),
    hooks,
    ...(prompts.length ? { prompts } : {}),
  };
}

/** A `prompt` hook: the small model judges it (see activities/hooks/prompt-hooks.ts). */
function readPromptHook(path: string, hook: Entries, skip: Skip): PromptHook | undefined {
  if (typeof hook.prompt !== 'string' || hook.prompt.trim() === '')
    return void skip(path, 'a prompt hook without a prompt');
  const timeoutMs = readTimeout(`${path}.timeout`, hook.timeout, skip);
  if (timeoutMs === null) return void skip(path, 'timeout must be a positive number of seconds');
  skipUnknownFields(path, hook, PROMPT_HOOK_FIELDS, skip);
  return {
    prompt: hook.prompt,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(typeof hook.model === 'string' && hook.model ? { model: hook.model } : {}),
  };
}

function readHook(path: string, hook: unknown, skip: Skip): HookCommand | undefined {
  if (!isEntries(hook)) return void skip(path, 'expected a hook ({"type": "command", "command": ...})');
  if (hook.type !== 'command') {
    return void skip(path, notRunReason(typeof hook.type === 'string' ? shown(hook.type) : 'missing'));
  }
  if (typeof hook.command !== 'string' || hook.command.trim() === '') {
    return void skip(path, 'a command hook without a command');
  }
  const timeoutMs = readTimeout(`${path}.timeout`, hook.timeout, skip);
  if (timeoutMs === null) return void skip(path, 'timeout must be a positive number of seconds');
  skipUnknownFields(path, hook, HOOK_FIELDS, skip);
  return { command: hook.command, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

/** A zod failure as a reason: the fields and what is wrong, never the values. */
const problems = (issues: readonly { path: PropertyKey[]; message: string }[]) =>
  issues.map((issue) => `${issue.path.map(String).map(shown).join('.') || 'entry'}: ${issue.message}`).join('; ');

/** Fields of a group or hook that Claude Code has and we do not: noted, and the entry runs without them. */
function skipUnknownFields(path: string, entry: Entries, known: Set<string>, skip: Skip): void {
  for (const key of Object.keys(entry)) {
    if (!known.has(key)) skip(`${path}.${shown(key)}`, 'a field durable-agent does not use (ignored)');
  }
}

/** Milliseconds; undefined when absent, null when unusable. Over the maximum, the maximum (and a note). */
function readTimeout(path: string, timeout: unknown, skip: Skip): number | undefined | null {
  if (timeout === undefined) return undefined;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) return null;
  // At least 1 ms: a hook passed on to a sub-agent is checked again as input, where 0 is refused.
  if (timeout <= MAX_TIMEOUT_S) return Math.max(1, Math.round(timeout * 1000));
  skip(path, `over ${MAX_TIMEOUT_S} s: the hook runs with ${MAX_TIMEOUT_S} s`);
  return STOP_HOOK_MAX_TIMEOUT_MS;
}
