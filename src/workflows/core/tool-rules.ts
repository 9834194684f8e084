/**
 * The rules of a planned tool call, as the tool declared them (src/activities/tools/<name>.ts,
 * copied onto the plan by the model activity). Workflow code asks here and never compares a
 * tool's name: a new tool needs no change under src/workflows/.
 */
import type { PlannedToolUse, ToolRules } from '../../shared/activity-io';
import { BASH_ACTIVITY_MARGIN_MS, BASH_DEFAULT_TIMEOUT_MS } from '../../shared/limits';

export function rulesOf(call: PlannedToolUse): ToolRules {
  return call.plan.rules ?? rulesByName(call);
}

/**
 * Replay fallback: plans recorded before the rules travelled with them (the histories of
 * sessions started earlier) carry none, so their rules follow from the name, as they did then.
 * The one place in workflow code that names tools.
 */
function rulesByName(call: PlannedToolUse): ToolRules {
  const input = (call.input ?? {}) as { command?: unknown; file_path?: unknown; pattern?: unknown; timeout?: number };
  const subject = String(input.command ?? input.file_path ?? input.pattern ?? '');
  switch (call.name) {
    case 'Bash':
      return {
        needsApproval: true,
        subject,
        cancelsLaterCallsOnError: true,
        timeoutMs: (input.timeout ?? BASH_DEFAULT_TIMEOUT_MS) + BASH_ACTIVITY_MARGIN_MS,
        changesFiles: true,
      };
    case 'Write':
    case 'Edit':
      return { needsApproval: true, subject, changesFiles: true };
    case 'Read':
      return { subject, readsFile: true };
    default:
      return { subject };
  }
}
