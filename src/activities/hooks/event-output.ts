/**
 * What a hook of the events issue 25 added says, in Claude Code's protocol (pure, unit-tested);
 * PreToolUse, PostToolUse and UserPromptSubmit are hook-output.ts's.
 * - PostToolUseFailure: exit 2 (stderr) or `hookSpecificOutput.additionalContext` is feedback for
 *   the model after the failed call's result;
 * - SessionStart, SubagentStart: plain stdout or `additionalContext` is context for the model
 *   (exit 2 only shows stderr: they cannot block);
 * - PreCompact: exit 2 or `{"decision":"block","reason":…}` blocks the compaction;
 * - PermissionRequest: `hookSpecificOutput.decision.behavior` `allow` or `deny` (with `message`)
 *   answers for the person; exit 2 denies;
 * - SessionEnd, PostCompact, Notification: their output is not read (only failures are reported).
 * `{"continue":false,"stopReason":…}` stops the run wherever a hook can (not SessionEnd: it is over).
 */
import type { ToolHookEvent } from '../../shared/hooks';
import type { HookRun, HookVerdict } from './hook-output';

interface EventJson {
  continue?: boolean;
  stopReason?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: {
    additionalContext?: unknown;
    decision?: { behavior?: unknown; message?: unknown };
  };
}

/** Events whose output is not read: they only watch. */
const WATCHING: readonly ToolHookEvent[] = ['SessionEnd', 'PostCompact', 'Notification'];

export function interpretEventHook(event: ToolHookEvent, command: string, run: HookRun): HookVerdict {
  const json = parseJson(run.stdout);
  const verdict: HookVerdict = {};
  if (json?.continue === false && event !== 'SessionEnd')
    verdict.stop = json.stopReason || `The ${event} hook \`${command}\` stopped the session`;
  if (run.timedOut) return { ...verdict, report: `${event} hook \`${command}\` timed out; ignored` };
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) return { ...verdict, ...exitTwo(event, command, stderr || run.stdout.trim()) };
  if (run.exitCode !== 0)
    return {
      ...verdict,
      report: `${event} hook \`${command}\` failed with exit code ${run.exitCode}; ignored: ${stderr.slice(0, 500)}`,
    };
  if (WATCHING.includes(event)) return verdict;
  const specific = json?.hookSpecificOutput;
  const context = typeof specific?.additionalContext === 'string' ? specific.additionalContext.trim() : '';
  switch (event) {
    case 'PostToolUseFailure':
      return { ...verdict, ...(context ? { feedback: context } : {}) };
    case 'SessionStart':
    case 'SubagentStart': {
      // Plain text on stdout is context; JSON says it in additionalContext.
      const added = json ? context : run.stdout.trim();
      return { ...verdict, ...(added ? { feedback: added } : {}) };
    }
    case 'PreCompact':
      return json?.decision === 'block'
        ? { ...verdict, blocked: json.reason || `PreCompact hook \`${command}\` blocked the compaction` }
        : verdict;
    case 'PermissionRequest':
      return { ...verdict, ...permissionAnswer(specific?.decision) };
    default:
      return verdict;
  }
}

function exitTwo(event: ToolHookEvent, command: string, said: string): HookVerdict {
  const reason = said || `${event} hook \`${command}\` exited with code 2`;
  if (event === 'PostToolUseFailure') return { feedback: reason };
  if (event === 'PreCompact') return { blocked: reason };
  if (event === 'PermissionRequest') return { decision: 'deny', reason };
  // SessionStart, SubagentStart, SessionEnd, PostCompact, Notification cannot block: stderr is only shown.
  return { report: `${event} hook \`${command}\` exited with code 2 (it cannot block): ${reason.slice(0, 500)}` };
}

function permissionAnswer(decision: { behavior?: unknown; message?: unknown } | undefined): HookVerdict {
  if (decision?.behavior === 'allow') return { decision: 'allow' };
  if (decision?.behavior !== 'deny') return {};
  const message = typeof decision.message === 'string' && decision.message.trim() ? decision.message.trim() : undefined;
  return { decision: 'deny', ...(message ? { reason: message } : {}) };
}

function parseJson(stdout: string): EventJson | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as EventJson) : undefined;
  } catch {
    return undefined;
  }
}
