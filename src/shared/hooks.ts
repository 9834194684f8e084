/**
 * Hooks in Claude Code's settings format: the `hooks` object of input `hooks` and of a
 * repository's `.claude/settings.json` (`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command",
 * "command":"…","timeout":30}]}], …}`), the form the workflow keeps them in, which of them a tool
 * call matches, and what crosses the activity boundary when they run.
 *
 * Pure zod and plain data: imported by the workflow, the activities and the CLI alike.
 */
import { z } from 'zod';
import type { TextOrRef } from './conversation';
import { STOP_HOOK_MAX_TIMEOUT_MS } from './limits';
import type { SandboxRequest } from './sandbox';
import type { TakenSnapshot } from './workspace';

/** A stop hook of the input: a command run when the model ends its turn (see StopHookInput). */
export const stopHookSchema = z
  .object({
    command: z.string().min(1),
    timeoutMs: z.number().int().positive().max(STOP_HOOK_MAX_TIMEOUT_MS).optional(),
  })
  .strict();

export type StopHook = z.infer<typeof stopHookSchema>;

/** The events we run; Stop hooks join the session's stop hooks (input `stopHooks`). */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
/** The events run by the tool-hook activity (Stop has its own, runStopHooks). */
export type ToolHookEvent = Exclude<HookEvent, 'Stop'>;

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

/** Input `hooks`: only the events we run, so a hook that would silently never run is an error. */
export const hooksInputSchema = z
  .object(
    Object.fromEntries(HOOK_EVENTS.map((event) => [event, z.array(claudeHookGroupSchema).optional()])) as Record<
      HookEvent,
      z.ZodOptional<z.ZodArray<typeof claudeHookGroupSchema>>
    >,
  )
  .strict();

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
export function skippedInputHooks(
  hooks: Partial<Record<HookEvent, readonly ClaudeHookGroup[]>> | undefined,
): SkippedSetting[] {
  const skipped: SkippedSetting[] = [];
  for (const [event, groups] of Object.entries(hooks ?? {}) as [HookEvent, readonly ClaudeHookGroup[]][]) {
    (groups ?? []).forEach((group, index) =>
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
  for (const event of ['PreToolUse', 'PostToolUse', 'UserPromptSubmit'] as const) {
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

/**
 * A sub-agent's input `hooks`: its parent's PreToolUse and PostToolUse hooks, in the input's
 * format, so a policy or formatter is never skipped in a helper (UserPromptSubmit is for what
 * people send, and a helper's task comes from the model). Undefined when there are none.
 */
export function inheritedHooks(hooks: ToolHooks | undefined): HooksInput | undefined {
  const inherited: HooksInput = {};
  for (const event of ['PreToolUse', 'PostToolUse'] as const) {
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

/** The commands of `event` that apply to a call of `toolName` (every one for UserPromptSubmit), each once. */
export function matchingHooks(hooks: ToolHooks, event: ToolHookEvent, toolName?: string): HookCommand[] {
  const matched: HookCommand[] = [];
  for (const group of hooks[event] ?? []) {
    if (event !== 'UserPromptSubmit' && !matchesTool(group.matcher, toolName ?? '')) continue;
    for (const hook of group.hooks) if (!matched.some((seen) => seen.command === hook.command)) matched.push(hook);
  }
  return matched;
}

/** The `prompt` hooks of `event` that apply to a call of `toolName` (every one for UserPromptSubmit), each once. */
export function matchingPromptHooks(hooks: ToolHooks, event: ToolHookEvent | 'Stop', toolName?: string): PromptHook[] {
  const matched: PromptHook[] = [];
  for (const group of hooks[event] ?? []) {
    if (event !== 'UserPromptSubmit' && event !== 'Stop' && !matchesTool(group.matcher, toolName ?? '')) continue;
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

/** What the tool-hook activity runs: the matched commands of one event, for one call or prompt. */
export interface ToolHookInput {
  sessionId: string;
  workdir: string;
  event: ToolHookEvent;
  hooks: HookCommand[];
  /** The matched `prompt` hooks, judged by the small model after the commands ran (absent: none). */
  prompts?: PromptHook[];
  sandbox?: SandboxRequest;
  /**
   * PreToolUse and PostToolUse: the call. `mcp`: it goes to this MCP server's tool (a PreToolUse
   * hook's `updatedInput` is planned again as such a call).
   */
  tool?: { name: string; toolUseId: string; input: unknown; mcp?: { server: string; tool: string } };
  /** PostToolUse: the call's result (its text read from the store when stored), to hand the hooks and extend with their feedback. */
  result?: { content: TextOrRef; isError: boolean; filePath?: string };
  /** UserPromptSubmit: the prompt (stored when long). */
  prompt?: TextOrRef;
  /** The workspace before the hooks: they may change files, and their activity snapshots over it. */
  snapshotRef?: string;
}

export interface ToolHookOutcome {
  /** PreToolUse: the strongest decision of the hooks (deny, then ask, then allow); absent: they had no say. */
  decision?: 'allow' | 'deny' | 'ask';
  /** Why (deny, ask): what the model sees of a denial. */
  reason?: string;
  /** PostToolUse: the call's result content with the hooks' feedback after it (absent: no feedback). */
  content?: TextOrRef;
  /** UserPromptSubmit: context the hooks add to the prompt; PreToolUse: context that goes with the call's result. */
  context?: string;
  /** PostToolUse: a hook's `updatedToolOutput` replaced the result the model sees (in `content`). */
  outputReplaced?: true;
  /** `systemMessage`s of the hooks: for the user (transcript, `watch`), not the model. */
  systemMessages?: string[];
  /** A hook said `suppressOutput`: the transcript does not quote what the hooks printed. */
  suppressOutput?: true;
  /** UserPromptSubmit: a hook blocked the prompt (exit 2, or `decision: "block"`), with its reason. */
  blocked?: string;
  /** `{"continue":false}`: the run ends after this turn's tools (`hook_stopped`), with this reason. */
  stop?: string;
  /** Hooks that failed or timed out (they do not decide anything), for the transcript. */
  reports: string[];
  /** The workspace as the hooks left it, when the input named the snapshot before them. */
  snapshot?: TakenSnapshot;
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
  /** PreToolUse, PostToolUse and UserPromptSubmit hooks from the repository's settings, read once at the start. */
  settingsToolHooks?: ToolHooks;
  /** Entries of the trusted settings files that cannot run (everything else in them runs). */
  skippedSettings?: SkippedSetting[];
}

export interface StopHookInput {
  sessionId: string;
  workdir: string;
  hooks: StopHook[];
  sandbox?: SandboxRequest;
  finalText: string;
  stopHookActive: boolean;
  /** Stop's `prompt` hooks, judged by the small model after the commands (absent: none). */
  prompts?: PromptHook[];
  /** The session's last snapshot: the hooks' activity snapshots the workspace over it when done. */
  snapshotRef?: string;
}

/** `snapshot`: the workspace as the hooks left it, when the input named the last snapshot. */
export type StopHookOutcome = { snapshot?: TakenSnapshot } & (
  | { kind: 'allow'; reports: string[] }
  | { kind: 'block'; reason: string; reports: string[] }
  | { kind: 'prevent'; reason: string; reports: string[] }
);
