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
 *   `hookSpecificOutput.additionalContext` (PostToolUse, UserPromptSubmit: for the model).
 */
import type { ToolHookEvent, ToolHookOutcome } from '../../shared/hooks';
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
}

interface HookJson {
  continue?: boolean;
  stopReason?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string; additionalContext?: string };
}

export function interpretToolHook(event: ToolHookEvent, command: string, run: HookRun): HookVerdict {
  const json = parseJson(run.stdout);
  const verdict: HookVerdict = {};
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
    return { ...verdict, ...(decision ? { decision } : {}), ...(reason ? { reason } : {}) };
  }
  if (event === 'PostToolUse') {
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

/** The hooks of one event together: any deny wins, then ask, then allow; every feedback and report kept. */
export function combineVerdicts(
  verdicts: readonly (HookVerdict & { command: string })[],
): Omit<ToolHookOutcome, 'content' | 'snapshot'> & { feedback?: string } {
  const outcome: ReturnType<typeof combineVerdicts> = {
    reports: verdicts.flatMap((verdict) => (verdict.report ? [verdict.report] : [])),
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
