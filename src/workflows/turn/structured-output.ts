/**
 * After a tool turn of a session with input `outputFormat`: the invalid StructuredOutput calls
 * counted (core/structured-output-rules.ts); a valid one ends the turn as the model's answer
 * would (stop hooks, people, the end: turn-end.ts), with no further model call.
 */
import type { PlannedToolUse } from '../../shared/activity-io';
import type { TurnOutcome } from '../core/loop';
import { afterStructuredOutputCalls, deliveredIn } from '../core/structured-output-rules';
import { endTurn, type TurnEndSession } from './turn-end';

export async function afterStructuredOutput(
  session: TurnEndSession,
  calls: readonly PlannedToolUse[],
): Promise<TurnOutcome> {
  const counted = afterStructuredOutputCalls(session.state, calls);
  session.update(counted.state);
  if (counted.finish) return counted.finish;
  if (deliveredIn(calls, session.state)) return endTurn(session);
  return { kind: 'continue', afterTools: true };
}
