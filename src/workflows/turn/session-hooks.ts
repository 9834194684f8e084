/**
 * Claude Code's session and compaction hooks in the loop: SessionStart (a new session, `startup`
 * or `fork`; after a compaction, `compact`) and, in a sub-agent, SubagentStart, whose context
 * joins the conversation as UserPromptSubmit's does; SessionEnd when a session ends (its output
 * is not read); PreCompact before a compaction (a block skips it) and PostCompact after it.
 *
 * Each runs as one activity only when the session has hooks of its event that match: a session
 * without them schedules and awaits nothing here, so recorded histories replay (hooks of these
 * events could not be in a session before issue 25: input refused them, settings skipped them).
 */
import { agentTypeOf, type HookCommand, matchingHooks, type ToolHookEvent } from '../../shared/hooks';
import type { ToolHookOutcome } from '../../shared/hook-runs';
import { injectMessages } from '../core/loop-state';
import type { PromptHookSession } from './prompt-hooks';
import { runHookActivity, sessionToolHooks, type ToolHookSession } from './tool-hooks';

/** What the session's hooks use of the session: a phase takes what it needs, not the whole session. */
export type SessionHookSession = PromptHookSession;

function hooksOf(session: ToolHookSession, event: ToolHookEvent, target: string): HookCommand[] {
  return matchingHooks(sessionToolHooks(session), event, target);
}

/** How a hook's context reaches the model. */
export function hookContextMessage(event: ToolHookEvent, context: string): string {
  return `<system-reminder>\n${event} hook additional context: ${context}\n</system-reminder>`;
}

/** A session's first hooks: SessionStart, or SubagentStart in a sub-agent (synchronous when there are none). */
function startEvent(session: ToolHookSession): {
  event: ToolHookEvent;
  target: string;
  fields: Record<string, unknown>;
} {
  const parent = session.input.parentSession;
  if (parent) {
    return { event: 'SubagentStart', target: agentTypeOf(parent), fields: {} };
  }
  const source = session.input.fork ? 'fork' : 'startup';
  return { event: 'SessionStart', target: source, fields: { source, model: session.state.model } };
}

/** Whether the session has hooks to run as it starts. */
export function hasStartHooks(session: ToolHookSession): boolean {
  const { event, target } = startEvent(session);
  return hooksOf(session, event, target).length > 0;
}

/**
 * SessionStart (or SubagentStart) hooks before the first model call: their context joins the
 * conversation; `continue: false` ends the run (`hook_stopped`) with its reason.
 */
export async function startSession(session: SessionHookSession): Promise<{ ended: string } | undefined> {
  const { event, target, fields } = startEvent(session);
  if (session.features.durableWorkspace) await session.workspaceReady();
  const snapshotRef = session.workspace.latestRef;
  const outcome = await runHookActivity(
    session,
    event,
    hooksOf(session, event, target),
    { eventFields: fields, ...(snapshotRef ? { snapshotRef } : {}) },
    `${event} hooks · ${target || 'session'}`,
  );
  if (outcome.snapshot) session.recordSnapshot(session.state.turnCount, outcome.snapshot);
  noteOutcome(session, event, outcome);
  if (outcome.stop) return { ended: `A ${event} hook stopped the session: ${outcome.stop}` };
  if (outcome.context) session.update(injectMessages(session.state, [hookContextMessage(event, outcome.context)]));
  return undefined;
}

/** Whether the session has SessionEnd hooks (never in a sub-agent: Claude Code's end there is SubagentStop). */
export function hasEndHooks(session: ToolHookSession, reason: string): boolean {
  return !session.input.parentSession && hooksOf(session, 'SessionEnd', reason).length > 0;
}

/** SessionEnd hooks as the session ends: `reason` is ours (`completed`, `max_turns`, …); their output is not read. */
export async function endSession(session: SessionHookSession, reason: string): Promise<void> {
  const outcome = await runHookActivity(
    session,
    'SessionEnd',
    hooksOf(session, 'SessionEnd', reason),
    { eventFields: { reason } },
    `SessionEnd hooks · ${reason}`,
  );
  noteOutcome(session, 'SessionEnd', outcome);
}

/**
 * PreCompact hooks before a compaction (every compaction here is `auto`: near the context window,
 * or after "prompt is too long"): undefined when it may go on, else why a hook blocked it.
 */
export async function beforeCompaction(session: ToolHookSession): Promise<string | undefined> {
  const hooks = hooksOf(session, 'PreCompact', 'auto');
  if (hooks.length === 0) return undefined;
  const outcome = await runHookActivity(
    session,
    'PreCompact',
    hooks,
    { eventFields: { trigger: 'auto', custom_instructions: null } },
    'PreCompact hooks · auto',
  );
  noteOutcome(session, 'PreCompact', outcome);
  return outcome.blocked;
}

/**
 * After a compaction: PostCompact hooks (they only watch), then SessionStart hooks of source
 * `compact`, whose context joins the compacted conversation.
 */
export async function afterCompaction(session: ToolHookSession & Pick<SessionHookSession, 'update'>): Promise<void> {
  const post = hooksOf(session, 'PostCompact', 'auto');
  if (post.length > 0) {
    const outcome = await runHookActivity(
      session,
      'PostCompact',
      post,
      { eventFields: { trigger: 'auto' } },
      'PostCompact hooks · auto',
    );
    noteOutcome(session, 'PostCompact', outcome);
  }
  const start = session.input.parentSession ? [] : hooksOf(session, 'SessionStart', 'compact');
  if (start.length === 0) return;
  const outcome = await runHookActivity(
    session,
    'SessionStart',
    start,
    { eventFields: { source: 'compact', model: session.state.model } },
    'SessionStart hooks · compact',
  );
  noteOutcome(session, 'SessionStart', outcome);
  if (outcome.context)
    session.update(injectMessages(session.state, [hookContextMessage('SessionStart', outcome.context)]));
}

/** The transcript's say of one event's hooks (a stop from these is noted, and acted on where it can be). */
export function noteOutcome(session: Pick<ToolHookSession, 'note'>, event: ToolHookEvent, outcome: ToolHookOutcome) {
  for (const report of outcome.reports) session.note({ type: 'hook', event, outcome: 'report', detail: report });
  if (outcome.blocked) session.note({ type: 'hook', event, outcome: 'blocked', detail: outcome.blocked });
  if (outcome.stop) session.note({ type: 'hook', event, outcome: 'stop', detail: outcome.stop });
  if (outcome.context) session.note({ type: 'hook', event, outcome: 'context', detail: outcome.context });
  if (outcome.decision) session.note({ type: 'hook', event, outcome: outcome.decision, detail: outcome.reason ?? '' });
}
