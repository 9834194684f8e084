/**
 * Hooks in Claude Code's settings format: the `hooks` object of input `hooks` and of a
 * repository's `.claude/settings.json` (`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command",
 * "command":"…","timeout":30}]}], …}`), the form the workflow keeps them in, which of them a tool
 * call matches (what crosses the activity boundary when they run: hook-runs.ts).
 *
 * Pure zod and plain data: imported by the workflow, the activities and the CLI alike.
 */
import { z } from 'zod';
import { STOP_HOOK_MAX_TIMEOUT_MS } from './limits';
import { DEFAULT_SUB_AGENT_TYPE } from './sub-agents';

/** A stop hook of the input: a command run when the model ends its turn (see StopHookInput). */
export const stopHookSchema = z
  .object({
    command: z.string().min(1),
    timeoutMs: z.number().int().positive().max(STOP_HOOK_MAX_TIMEOUT_MS).optional(),
  })
  .strict();

export type StopHook = z.infer<typeof stopHookSchema>;

/**
 * The events we run; Stop hooks join the session's stop hooks (input `stopHooks`). The first four
 * are those input `hooks` took before issue 25 (`LEGACY_HOOK_EVENTS`).
 */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'PostToolUseFailure',
  'SessionStart',
  'SessionEnd',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
  'Notification',
  'PermissionRequest',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
/** The events of input `hooks` before issue 25: any other made the input invalid. */
export const LEGACY_HOOK_EVENTS: readonly string[] = HOOK_EVENTS.slice(0, 4);
/** The events run by the tool-hook activity (Stop has its own, runStopHooks, and so has SubagentStop in a sub-agent). */
export type ToolHookEvent = Exclude<HookEvent, 'Stop'>;
/** The events whose matcher is over a tool's name (the others' is over their `source`, `trigger`, `agent_type`, …). */
export const TOOL_EVENTS: readonly HookEvent[] = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
];

/**
 * Claude Code's events that durable-agent does not run, and why: accepted in input `hooks` and in
 * settings files, and listed as skipped (never an error). An event named nowhere here or in
 * HOOK_EVENTS (a newer Claude Code's, or a typo) is skipped too, with UNKNOWN_EVENT_REASON.
 */
export const SKIPPED_HOOK_EVENTS: Readonly<Record<string, string>> = {
  PostToolBatch: 'tool batches are not a hook point here (PostToolUse runs after each call)',
  UserPromptExpansion: 'there are no slash commands to expand',
  StopFailure: 'a failed turn ends the session with its reason; there is nothing a hook could change',
  PreModelSwitch: 'the model of a session does not change mid-session (only its fallback)',
  PostModelSwitch: 'the model of a session does not change mid-session (only its fallback)',
  PermissionDenied: 'there is no auto-mode classifier whose denials could be retried',
  Setup: 'there is no --init or maintenance run',
  TeammateIdle: 'there are no agent teams',
  TaskCreated: 'there are no agent-team tasks',
  TaskCompleted: 'there are no agent-team tasks',
  Elicitation: 'MCP elicitation is not supported',
  ElicitationResult: 'MCP elicitation is not supported',
  ConfigChange: 'settings are read once when the session starts',
  WorktreeCreate: 'sub-agents share the session workdir (no worktree isolation yet)',
  WorktreeRemove: 'sub-agents share the session workdir (no worktree isolation yet)',
  InstructionsLoaded: 'instruction files are listed in the session entry instead',
  CwdChanged: 'the working directory is the workdir, always',
  FileChanged: 'files are not watched',
  DirectoryAdded: 'there are no additional directories',
  MessageDisplay: 'there is no terminal display',
  PreSkillShellCommand: 'skills run no shell commands of their own',
};
export const UNKNOWN_EVENT_REASON = 'not a hook event durable-agent knows (Claude Code 2.1 events are known)';

/** Why an event of input `hooks` or a settings file is not run; undefined when it runs. */
export function skippedEventReason(event: string): string | undefined {
  if ((HOOK_EVENTS as readonly string[]).includes(event)) return undefined;
  const reason = Object.hasOwn(SKIPPED_HOOK_EVENTS, event) ? SKIPPED_HOOK_EVENTS[event] : UNKNOWN_EVENT_REASON;
  return `hook event not run by durable-agent: ${reason}`;
}

/** One command as Claude Code writes it: `timeout` in seconds. */
export const claudeHookCommandSchema = z
  .object({
    type: z.literal('command'),
    command: z.string().min(1),
    timeout: z
      .number()
      .positive()
      .max(STOP_HOOK_MAX_TIMEOUT_MS / 1000)
      .optional(),
  })
  .strict();

/**
 * A `prompt` hook as Claude Code writes it: the small model judges `prompt` (the hook's input JSON
 * in place of `$ARGUMENTS`, or after it) and answers `{"ok": true|false, "reason": "…"}`.
 */
export const claudePromptHookSchema = z
  .object({
    type: z.literal('prompt'),
    prompt: z.string().min(1),
    timeout: z
      .number()
      .positive()
      .max(STOP_HOOK_MAX_TIMEOUT_MS / 1000)
      .optional(),
    model: z.string().min(1).optional(),
    statusMessage: z.string().optional(),
  })
  .strict();

/** Claude Code's handler types we do not run: accepted in input `hooks`, skipped with a note. */
export const NOT_RUN_HOOK_TYPES = ['agent', 'http', 'mcp_tool'] as const;
export const claudeNotRunHookSchema = z.looseObject({ type: z.enum(NOT_RUN_HOOK_TYPES) });

const MATCHER_RULE = 'must be a tool name, names joined by |, a regular expression, or * for every tool';
const matcherSchema = z.string().refine((matcher) => compiles(matcher), MATCHER_RULE);

/** Why a repository's matcher cannot be used; undefined when it can. */
export function matcherProblem(matcher: unknown): string | undefined {
  return typeof matcher === 'string' && compiles(matcher) ? undefined : `matcher ${MATCHER_RULE}`;
}

export const claudeHookGroupSchema = z
  .object({
    matcher: matcherSchema.optional(),
    hooks: z.array(z.union([claudeHookCommandSchema, claudePromptHookSchema, claudeNotRunHookSchema])),
  })
  .strict();

/**
 * Input `hooks`: the events we run, checked; any other event is accepted unread and listed as
 * skipped (`skippedInputHooks`), as Claude Code's newer events must not make an input invalid.
 */
export const hooksInputSchema = z
  .object(
    Object.fromEntries(HOOK_EVENTS.map((event) => [event, z.array(claudeHookGroupSchema).optional()])) as Record<
      HookEvent,
      z.ZodOptional<z.ZodArray<typeof claudeHookGroupSchema>>
    >,
  )
  .catchall(z.unknown());

/** The events of a raw input's `hooks` that input `hooks` refused before issue 25 (HOOK_EVENTS_PATCH). */
export function newHookEvents(rawInput: unknown): string[] {
  const hooks = (rawInput as { hooks?: unknown } | null)?.hooks;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return [];
  return Object.keys(hooks).filter((event) => !LEGACY_HOOK_EVENTS.includes(event));
}

/** The events of input `hooks` that are not run, each with its reason (`file: "input"`). */
export function skippedInputHooks(hooks: Record<string, unknown> | undefined): SkippedSetting[] {
  return Object.keys(hooks ?? {}).flatMap((event) => {
    const reason = skippedEventReason(event);
    return reason ? [{ file: 'input', path: `hooks.${event.slice(0, 40)}`, reason }] : [];
  });
}

export type ClaudeHookGroup = z.infer<typeof claudeHookGroupSchema>;
export type HooksInput = z.infer<typeof hooksInputSchema>;

/** A command to run, as the activities take it (`timeoutMs`, like a stop hook's). */
export interface HookCommand {
  command: string;
  timeoutMs?: number;
}

/** A `prompt` hook, as the activities take it: the small model decides (PreToolUse, PostToolUse, UserPromptSubmit). */
export interface PromptHook {
  prompt: string;
  timeoutMs?: number;
  /** The model that judges; absent: the worker's small model (AGENT_SMALL_MODEL). */
  model?: string;
}

export interface HookGroup {
  /** Claude Code's matcher over the tool name; absent, empty or `*`: every tool. */
  matcher?: string;
  hooks: HookCommand[];
  /** The group's `prompt` hooks (tool-hook events only); absent when it has none. */
  prompts?: PromptHook[];
}

/** What a prompt hook is called in notes and the UI: `prompt "Is this safe…"`. */
export function promptHookLabel(hook: PromptHook): string {
  const line = hook.prompt.replace(/\s+/g, ' ').trim();
  return `prompt "${line.length > 40 ? `${line.slice(0, 37)}...` : line}"`;
}

/**
 * The tool hooks of a session, by event (only events that have some). `Stop`: only groups of
 * `prompt` hooks (a Stop command is a stop hook, input `stopHooks`).
 */
export type ToolHooks = Partial<Record<ToolHookEvent, HookGroup[]>> & { Stop?: HookGroup[] };

/** Claude Code's groups as we keep them: timeouts in milliseconds. */
export function hookGroups(groups: readonly ClaudeHookGroup[] | undefined): HookGroup[] {
  return (groups ?? []).map((group) => {
    const prompts = group.hooks.flatMap((hook) =>
      hook.type === 'prompt'
        ? [
            {
              prompt: hook.prompt,
              ...(hook.timeout !== undefined ? { timeoutMs: hook.timeout * 1000 } : {}),
              ...(hook.model !== undefined ? { model: hook.model } : {}),
            },
          ]
        : [],
    );
    return {
      ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
      hooks: group.hooks.flatMap((hook) =>
        hook.type === 'command'
          ? [{ command: hook.command, ...(hook.timeout !== undefined ? { timeoutMs: hook.timeout * 1000 } : {}) }]
          : [],
      ),
      ...(prompts.length ? { prompts } : {}),
    };
  });
}

/**
 * The hooks of input `hooks` that do not run, as notes (file `input`): handler types we do not run
 * (`agent`, `http`, `mcp_tool`).
 */
export function skippedInputHandlers(
  hooks: Partial<Record<HookEvent, readonly ClaudeHookGroup[]>> | undefined,
): SkippedSetting[] {
  const skipped: SkippedSetting[] = [];
  for (const event of HOOK_EVENTS) {
    // Only the events we read: the others are accepted unread (`skippedInputHooks` names them).
    const groups: unknown = hooks?.[event];
    if (!Array.isArray(groups)) continue;
    (groups as readonly ClaudeHookGroup[]).forEach((group, index) =>
      group.hooks.forEach((hook, position) => {
        const path = `hooks.${event}.${index}.hooks.${position}`;
        if (hook.type !== 'command' && hook.type !== 'prompt')
          skipped.push({ file: 'input', path, reason: notRunReason(hook.type) });
      }),
    );
  }
  return skipped;
}

/** Why a hook of this handler type is not run. */
export function notRunReason(type: string): string {
  return `hook type "${type}" is not run (durable-agent runs "command" and "prompt" hooks)`;
}

/** The tool-hook events of a settings `hooks` object; undefined when it has none. */
export function toolHooksOf(
  hooks: Partial<Record<HookEvent, readonly ClaudeHookGroup[]>> | undefined,
): ToolHooks | undefined {
  const result: ToolHooks = {};
  for (const event of HOOK_EVENTS) {
    if (event === 'Stop') continue;
    const groups = hookGroups(hooks?.[event]).filter((group) => group.hooks.length > 0 || group.prompts?.length);
    if (groups.length) result[event] = groups;
  }
  // Stop's prompt hooks (its commands join the stop hooks).
  const stop = hookGroups(hooks?.Stop).flatMap((group) =>
    group.prompts ? [{ hooks: [], prompts: group.prompts }] : [],
  );
  if (stop.length) result.Stop = stop;
  return Object.keys(result).length ? result : undefined;
}

/** The events whose hooks a sub-agent takes from its parent: those of its calls, its start and its stop. */
export const INHERITED_HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'Notification',
  'SubagentStart',
  'SubagentStop',
] as const;

/**
 * A sub-agent's input `hooks`: its parent's hooks of INHERITED_HOOK_EVENTS, in the input's
 * format, so a policy or formatter is never skipped in a helper (UserPromptSubmit is for what
 * people send, and a helper's task comes from the model; SessionStart and SessionEnd are the
 * session's, the sub-agent runs SubagentStart and SubagentStop). Undefined when there are none.
 */
export function inheritedHooks(hooks: ToolHooks | undefined): HooksInput | undefined {
  const inherited: HooksInput = {};
  for (const event of INHERITED_HOOK_EVENTS) {
    const groups = hooks?.[event];
    if (!groups?.length) continue;
    inherited[event] = groups.map((group) => ({
      ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
      hooks: [
        ...group.hooks.map((hook) => ({
          type: 'command' as const,
          command: hook.command,
          ...(hook.timeoutMs !== undefined ? { timeout: hook.timeoutMs / 1000 } : {}),
        })),
        ...(group.prompts ?? []).map((hook) => ({
          type: 'prompt' as const,
          prompt: hook.prompt,
          ...(hook.timeoutMs !== undefined ? { timeout: hook.timeoutMs / 1000 } : {}),
          ...(hook.model !== undefined ? { model: hook.model } : {}),
        })),
      ],
    }));
  }
  return Object.keys(inherited).length ? inherited : undefined;
}

/** The input's hooks first, then the repository's: Claude Code runs every matching one. */
export function mergeToolHooks(...sources: (ToolHooks | undefined)[]): ToolHooks {
  const merged: ToolHooks = {};
  for (const source of sources) {
    for (const [event, groups] of Object.entries(source ?? {}) as [ToolHookEvent, HookGroup[]][])
      merged[event] = [...(merged[event] ?? []), ...groups];
  }
  return merged;
}

/**
 * Claude Code's matcher: absent, empty or `*` matches every tool; a name or names joined by `|`
 * match exactly those tools; anything else is a regular expression tested against the name
 * (`Notebook.*`, `mcp__github__.*`).
 */
export function matchesTool(matcher: string | undefined, toolName: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) return matcher.split('|').includes(toolName);
  try {
    return new RegExp(matcher).test(toolName);
  } catch {
    return false;
  }
}

/**
 * The commands of `event` that apply to a call of `toolName` (every one for UserPromptSubmit), each
 * once. `aliases`: the tool's other names, from the call's plan (a `Task` matcher matches Agent calls).
 * For the events whose matcher is not over a tool, `toolName` is what it matches: SessionStart's
 * `source`, PreCompact's and PostCompact's `trigger`, SubagentStart's and SubagentStop's `agent_type`,
 * Notification's `notification_type`, SessionEnd's `reason`.
 */
export function matchingHooks(
  hooks: ToolHooks,
  event: ToolHookEvent,
  toolName?: string,
  aliases: readonly string[] = [],
): HookCommand[] {
  const matched: HookCommand[] = [];
  const names = [toolName ?? '', ...aliases];
  for (const group of hooks[event] ?? []) {
    if (event !== 'UserPromptSubmit' && !names.some((name) => matchesTool(group.matcher, name))) continue;
    for (const hook of group.hooks) if (!matched.some((seen) => seen.command === hook.command)) matched.push(hook);
  }
  return matched;
}

/** A sub-agent's type as its hooks read it (`agent_type`): its input names it, or (older children) its note does. */
export function agentTypeOf(parent: { agentType?: string; toolsLeftOut?: { agentType: string } }): string {
  return parent.agentType ?? parent.toolsLeftOut?.agentType ?? DEFAULT_SUB_AGENT_TYPE;
}

/** A sub-agent's SubagentStop hooks (those matching its type), which run as its stop hooks. */
export function subagentStopHooks(hooks: ToolHooks, agentType: string): StopHook[] {
  return matchingHooks(hooks, 'SubagentStop', agentType);
}

/** The `prompt` hooks of `event` that apply to a call of `toolName` (every one for UserPromptSubmit), each once. */
export function matchingPromptHooks(
  hooks: ToolHooks,
  event: ToolHookEvent | 'Stop',
  toolName?: string,
  aliases: readonly string[] = [],
): PromptHook[] {
  const matched: PromptHook[] = [];
  const names = [toolName ?? '', ...aliases];
  for (const group of hooks[event] ?? []) {
    if (event !== 'UserPromptSubmit' && event !== 'Stop' && !names.some((name) => matchesTool(group.matcher, name)))
      continue;
    for (const hook of group.prompts ?? [])
      if (!matched.some((seen) => seen.prompt === hook.prompt)) matched.push(hook);
  }
  return matched;
}

function compiles(pattern: string): boolean {
  // `*` is Claude Code's "every tool", not a regular expression (one that would not compile).
  if (pattern === '*') return true;
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** An entry of a trusted repository settings file that was not run, and why (the `session` entry and `state`). */
export interface SkippedSetting {
  /** The settings file, relative to the workdir (`.claude/settings.json`). */
  file: string;
  /** Where in it, dotted (`hooks.Notification`, `hooks.Stop.0.hooks.1`, `permissions`). */
  path: string;
  reason: string;
}

/** What prepareSession read of the repository's tool hooks (only when trusted). */
export interface SessionHookSettings {
  /** The repository's hooks of every event we run but Stop (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, …), read once at the start. */
  settingsToolHooks?: ToolHooks;
  /** Entries of the trusted settings files that cannot run (everything else in them runs). */
  skippedSettings?: SkippedSetting[];
}
