/**
 * What a tool hook's run says, in Claude Code's protocol (pure, unit-tested):
 * - exit 0: no objection; UserPromptSubmit's plain stdout is context for the prompt;
 * - exit 2: PreToolUse denies the call, PostToolUse sends stderr to the model, UserPromptSubmit
 *   blocks the prompt (stderr is the reason);
 * - other exits and timeouts: reported, deciding nothing;
 * - JSON on stdout: `{"continue":false,"stopReason":…}` ends the run after the turn's tools;
 *   `hookSpecificOutput.permissionDecision` (`allow`, `deny`, `ask`) with
 *   `permissionDecisionReason` (PreToolUse; the older `decision: "approve" | "block"` too);
 *   `{"decision":"block","reason":…}` (PostToolUse: feedback; UserPromptSubmit: blocked);
 *   `hookSpecificOutput.additionalContext` (PreToolUse, PostToolUse, UserPromptSubmit: for the model);
 *   PreToolUse `updatedInput` (the call's whole new input; not with deny or `defer`, which is no
 *   decision here), PostToolUse `updatedToolOutput` (the result the model sees; the older
 *   `updatedMCPToolOutput` for MCP calls), and for every event `systemMessage` (for the user) and
 *   `suppressOutput` (the transcript does not quote the hook's output).
 * A `prompt` hook's reply (interpretPromptHook) is Claude Code's `{"ok": true|false, "reason": …}`.
 */
import type { ToolHookEvent } from '../../shared/hooks';
import type { ToolHookOutcome } from '../../shared/hook-runs';
import { HOOK_FEEDBACK_MAX_CHARS } from '../../shared/limits';
import type { GroupRun } from '../../sandbox/process-group';

export type HookRun = Pick<GroupRun, 'exitCode' | 'stdout' | 'stderr' | 'timedOut'>;

/** One hook's say. */
export interface HookVerdict {
  decision?: 'allow' | 'deny' | 'ask';
  /** Why it denied or asks. */
  reason?: string;
  /** For the model: PostToolUse feedback, UserPromptSubmit context. */
  feedback?: string;
  /** UserPromptSubmit: the prompt is blocked, for this reason. */
  blocked?: string;
  /** `continue: false`: the run ends after the turn's tools. */
  stop?: string;
  /** It failed or timed out: said in the transcript only. */
  report?: string;
  /** PreToolUse: the input the call runs with instead (`updatedInput`). */
  updatedInput?: Record<string, unknown>;
  /** PreToolUse: `additionalContext`, for the model with the call's result. */
  context?: string;
  /** PostToolUse: `updatedToolOutput`, the result the model sees instead. */
  updatedOutput?: string;
  /** PostToolUse: `updatedMCPToolOutput`, the same for MCP calls only. */
  updatedMcpOutput?: string;
  /** `systemMessage`: for the user, not the model. */
  message?: string;
  /** `suppressOutput: true`. */
  suppress?: true;
}

interface HookJson {
  continue?: boolean;
  stopReason?: string;
  decision?: string;
  reason?: string;
  systemMessage?: unknown;
  suppressOutput?: unknown;
  hookSpecificOutput?: {
    permissionDecision?: string;
    permissionDecisionReason?: string;
    additionalContext?: string;
    updatedInput?: unknown;
    updatedToolOutput?: unknown;
    updatedMCPToolOutput?: unknown;
  };
}

export function interpretToolHook(event: ToolHookEvent, command: string, run: HookRun): HookVerdict {
  const json = parseJson(run.stdout);
  const verdict: HookVerdict = commonFields(json);
  if (json?.continue === false)
    verdict.stop = json.stopReason || `The ${event} hook \`${command}\` stopped the session`;
  if (run.timedOut) return { ...verdict, report: `${event} hook \`${command}\` timed out; ignored` };
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) {
    const reason = stderr || run.stdout.trim() || `${event} hook \`${command}\` exited with code 2`;
    if (event === 'PreToolUse') return { ...verdict, decision: 'deny', reason };
    if (event === 'PostToolUse') return { ...verdict, feedback: reason };
    return { ...verdict, blocked: reason };
  }
  if (run.exitCode !== 0)
    return {
      ...verdict,
      report: `${event} hook \`${command}\` failed with exit code ${run.exitCode}; ignored: ${stderr.slice(0, 500)}`,
    };
  const specific = json?.hookSpecificOutput;
  const context = specific?.additionalContext?.trim();
  if (event === 'PreToolUse') {
    const decision = permissionDecision(specific?.permissionDecision ?? json?.decision);
    const reason = specific?.permissionDecisionReason ?? json?.reason;
    // A hook that stops the session lets no call through.
    if (verdict.stop && decision !== 'deny') return { ...verdict, decision: 'deny', reason: verdict.stop };
    // Claude Code: an update goes with allow, ask or no decision; `defer` (no decision here) drops it.
    const updatedInput =
      decision !== 'deny' && specific?.permissionDecision !== 'defer' ? plainObject(specific?.updatedInput) : undefined;
    return {
      ...verdict,
      ...(decision ? { decision } : {}),
      ...(reason ? { reason } : {}),
      ...(updatedInput ? { updatedInput } : {}),
      ...(context ? { context } : {}),
    };
  }
  if (event === 'PostToolUse') {
    const updatedOutput = outputText(specific?.updatedToolOutput);
    const updatedMcpOutput = outputText(specific?.updatedMCPToolOutput);
    if (updatedOutput !== undefined) verdict.updatedOutput = updatedOutput;
    if (updatedMcpOutput !== undefined) verdict.updatedMcpOutput = updatedMcpOutput;
    const feedback = [
      json?.decision === 'block' ? json.reason || `PostToolUse hook \`${command}\` objected to the result` : undefined,
      context,
    ]
      .filter(Boolean)
      .join('\n');
    return { ...verdict, ...(feedback ? { feedback } : {}) };
  }
  if (json?.decision === 'block')
    return { ...verdict, blocked: json.reason || `UserPromptSubmit hook \`${command}\` blocked the prompt` };
  // Plain text on stdout is context for the prompt; JSON says it in additionalContext.
  const added = json ? context : run.stdout.trim();
  return { ...verdict, ...(added ? { feedback: added } : {}) };
}

/**
 * A `prompt` hook's reply, Claude Code's `{"ok": true|false, "reason": "…"}` (its JSON may sit in
 * a code fence or among words): `ok: false` denies the call (PreToolUse), is feedback for the model
 * (PostToolUse), blocks the prompt (UserPromptSubmit) or the stop (Stop: the model goes on), with the reason; a reply without that
 * shape decides nothing and is reported.
 */
export function interpretPromptHook(event: ToolHookEvent | 'Stop', label: string, reply: string): HookVerdict {
  const json = parseJson(reply.slice(reply.indexOf('{'), reply.lastIndexOf('}') + 1)) as
    { ok?: unknown; decision?: unknown; reason?: unknown } | undefined;
  // The earlier shape, still in settings files' prompts: `{"decision": "approve"|"allow"|"block"|"deny"}`.
  const older = typeof json?.decision === 'string' ? permissionDecision(json.decision) : undefined;
  const ok = typeof json?.ok === 'boolean' ? json.ok : older === 'allow' ? true : older === 'deny' ? false : undefined;
  if (!json || ok === undefined)
    return { report: `${event} hook ${label}: the model's answer was not {"ok": true|false, "reason": …}; ignored` };
  if (ok) return {};
  const reason =
    typeof json.reason === 'string' && json.reason.trim() ? json.reason.trim() : `${event} hook ${label} said no`;
  if (event === 'PreToolUse') return { decision: 'deny', reason };
  if (event === 'PostToolUse') return { feedback: reason };
  return { blocked: reason };
}

/** The hooks of one event together: any deny wins, then ask, then allow; every feedback and report kept. */
export function combineVerdicts(
  verdicts: readonly (HookVerdict & { command: string })[],
): Omit<ToolHookOutcome, 'content' | 'snapshot'> & CombinedUpdates {
  const outcome: ReturnType<typeof combineVerdicts> = {
    reports: verdicts.flatMap((verdict) => (verdict.report ? [verdict.report] : [])),
    ...combineUpdates(verdicts),
  };
  for (const decision of ['deny', 'ask', 'allow'] as const) {
    const deciding = verdicts.filter((verdict) => verdict.decision === decision);
    if (deciding.length === 0) continue;
    outcome.decision = decision;
    const reasons = deciding.map((verdict) => verdict.reason).filter(Boolean);
    if (reasons.length) outcome.reason = cut(reasons.join('\n'));
    break;
  }
  const feedback = verdicts.filter((verdict) => verdict.feedback).map((verdict) => verdict.feedback!);
  if (feedback.length) outcome.feedback = cut(feedback.join('\n\n'));
  const blocked = verdicts.filter((verdict) => verdict.blocked).map((verdict) => verdict.blocked!);
  if (blocked.length) outcome.blocked = cut(blocked.join('\n'));
  const stops = verdicts.filter((verdict) => verdict.stop).map((verdict) => verdict.stop!);
  if (stops.length) outcome.stop = cut(stops.join('\n'));
  return outcome;
}

/** What the activity applies of the hooks' outputs: feedback, updates, messages. */
export interface CombinedUpdates {
  feedback?: string;
  /** PreToolUse: the last `updatedInput`, and the hook that gave it. */
  updatedInput?: { input: Record<string, unknown>; command: string };
  /** PostToolUse: the last `updatedToolOutput` (`mcp`: `updatedMCPToolOutput`). */
  updatedOutput?: string;
  updatedMcpOutput?: string;
}

function combineUpdates(verdicts: readonly (HookVerdict & { command: string })[]) {
  const combined: Omit<CombinedUpdates, 'feedback'> & Pick<ToolHookOutcome, 'systemMessages' | 'suppressOutput'> = {};
  for (const verdict of verdicts) {
    if (verdict.updatedInput) combined.updatedInput = { input: verdict.updatedInput, command: verdict.command };
    if (verdict.updatedOutput !== undefined) combined.updatedOutput = cut(verdict.updatedOutput);
    if (verdict.updatedMcpOutput !== undefined) combined.updatedMcpOutput = cut(verdict.updatedMcpOutput);
    if (verdict.message) (combined.systemMessages ??= []).push(cut(verdict.message));
    if (verdict.suppress) combined.suppressOutput = true;
  }
  const context = verdicts.filter((verdict) => verdict.context).map((verdict) => verdict.context!);
  return { ...combined, ...(context.length ? { context: cut(context.join('\n\n')) } : {}) };
}

/** `systemMessage` and `suppressOutput`, which every event's JSON may hold. */
function commonFields(json: HookJson | undefined): HookVerdict {
  const verdict: HookVerdict = {};
  if (typeof json?.systemMessage === 'string' && json.systemMessage.trim()) verdict.message = json.systemMessage.trim();
  if (json?.suppressOutput === true) verdict.suppress = true;
  return verdict;
}

function plainObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A replacement output as the model reads it: a string as is, MCP text blocks joined, anything else as JSON. */
function outputText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((block) => plainObject(block)?.type === 'text'))
    return value.map((block) => String((block as { text?: unknown }).text ?? '')).join('\n');
  return JSON.stringify(value);
}

function permissionDecision(value: string | undefined): HookVerdict['decision'] {
  if (value === 'allow' || value === 'approve') return 'allow';
  if (value === 'deny' || value === 'block') return 'deny';
  if (value === 'ask') return 'ask';
  return undefined;
}

function parseJson(stdout: string): HookJson | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as HookJson) : undefined;
  } catch {
    return undefined;
  }
}

/** What hooks add to the conversation is bounded: a runaway hook cannot fill the context. */
function cut(text: string): string {
  return text.length > HOOK_FEEDBACK_MAX_CHARS
    ? `${text.slice(0, HOOK_FEEDBACK_MAX_CHARS)}\n[… cut at ${HOOK_FEEDBACK_MAX_CHARS} characters]`
    : text;
}
