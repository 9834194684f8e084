import type { PlannedToolUse } from '../../shared/activity-io';

/** One line for people: the plan's summary, or the tool's name when its input was invalid. */
export function summaryOf(call: PlannedToolUse): string {
  return call.plan.ok ? call.plan.summary : `${call.name} (invalid input)`;
}
