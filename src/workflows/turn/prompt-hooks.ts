/**
 * UserPromptSubmit hooks (Claude Code's): they see the session's prompt before the first model
 * call, and each message people send before it joins the conversation. What they print (or say
 * in `additionalContext`) goes with the prompt as context; exit 2 or `decision: "block"` blocks
 * it: a blocked task ends the run (`hook_stopped`, as does `continue: false`), a blocked message
 * is dropped, and the transcript says why.
 *
 * Without UserPromptSubmit hooks nothing here schedules or awaits anything (old histories replay).
 */
import { type HookCommand, matchingHooks, matchingPromptHooks, type PromptHook } from '../../shared/hooks';
import type { AgentSession } from '../session/agent-session';
import { injectMessages } from '../core/loop-state';
import { runHookActivity, sessionToolHooks, type ToolHookSession } from './tool-hooks';

/** What UserPromptSubmit hooks uses of the session: a phase takes what it needs, not the whole session. */
export type PromptHookSession = Pick<
  AgentSession,
  | 'features'
  | 'note'
  | 'prepared'
  | 'recordSnapshot'
  | 'snapshotAfter'
  | 'state'
  | 'steering'
  | 'update'
  | 'workspace'
  | 'workspaceReady'
> &
  ToolHookSession;

function promptHooks(session: PromptHookSession): HookCommand[] {
  return matchingHooks(sessionToolHooks(session), 'UserPromptSubmit');
}

/** The `prompt` hooks (the small model judges) of UserPromptSubmit, as the activity's input field. */
function modelHooks(session: PromptHookSession): { prompts?: PromptHook[] } {
  const prompts = matchingPromptHooks(sessionToolHooks(session), 'UserPromptSubmit');
  return prompts.length ? { prompts } : {};
}

/** Whether the session has UserPromptSubmit hooks (synchronous: a session without awaits nothing). */
export function hasPromptHooks(session: PromptHookSession): boolean {
  return promptHooks(session).length > 0 || modelHooks(session).prompts !== undefined;
}

/** How hook context reaches the model, after the prompt it belongs to. */
export function withHookContext(text: string, context: string | undefined): string {
  return context
    ? `${text}\n\n<system-reminder>\nUserPromptSubmit hook additional context: ${context}\n</system-reminder>`
    : text;
}

/**
 * The task, before the first model call of a new session: its context joins the conversation as
 * a message after it; a block or a stop says why the run ends.
 */
export async function submitTask(session: PromptHookSession): Promise<{ ended: string } | undefined> {
  const hooks = promptHooks(session);
  // Hooks are commands: they wait for the start snapshot, and what they change belongs to it.
  if (session.features.durableWorkspace) await session.workspaceReady();
  const snapshotRef = session.workspace.latestRef;
  const outcome = await runHookActivity(
    session,
    'UserPromptSubmit',
    hooks,
    { prompt: session.prepared.prompt, ...modelHooks(session), ...(snapshotRef ? { snapshotRef } : {}) },
    'UserPromptSubmit hooks · task',
  );
  if (outcome.snapshot) session.recordSnapshot(session.state.turnCount, outcome.snapshot);
  noteOutcome(session, outcome);
  if (outcome.blocked || outcome.stop)
    return {
      ended: `A UserPromptSubmit hook ${outcome.blocked ? 'blocked the task' : 'stopped the session'}: ${outcome.blocked ?? outcome.stop}`,
    };
  if (outcome.context)
    session.update(injectMessages(session.state, [withHookContext('', outcome.context).trimStart()]));
  return undefined;
}

/** Whether messages people sent wait for their UserPromptSubmit hooks (synchronous: nothing to do awaits nothing). */
export function screeningNeeded(session: PromptHookSession): boolean {
  return session.steering.queued.length > session.steering.screened && hasPromptHooks(session);
}

/**
 * Runs the hooks on each queued message they have not seen, in order (messages sent meanwhile
 * too): a blocked one leaves the queue, the others take their context along.
 */
export async function screenQueued(session: PromptHookSession): Promise<void> {
  const hooks = promptHooks(session);
  const queued = session.steering.queued as string[];
  while (session.steering.screened < queued.length) {
    const index = session.steering.screened;
    const text = queued[index]!;
    const outcome = await runHookActivity(
      session,
      'UserPromptSubmit',
      hooks,
      { prompt: { text }, ...modelHooks(session) },
      'UserPromptSubmit hooks · message',
    );
    noteOutcome(session, outcome);
    // Only the driver takes queued messages, and it waits for this: the message is still at `index`.
    if (outcome.blocked || outcome.stop) queued.splice(index, 1);
    else {
      queued[index] = withHookContext(text, outcome.context);
      session.steering.screened++;
    }
  }
  // What the hooks changed is in the turn's snapshot: taken by an activity of its own, as after stop hooks.
  if (session.workspace.latestRef) await session.snapshotAfter(session.state.turnCount);
}

function noteOutcome(session: PromptHookSession, outcome: Awaited<ReturnType<typeof runHookActivity>>): void {
  for (const report of outcome.reports)
    session.note({ type: 'hook', event: 'UserPromptSubmit', outcome: 'report', detail: report });
  for (const message of outcome.systemMessages ?? [])
    session.note({ type: 'hook', event: 'UserPromptSubmit', outcome: 'message', detail: message });
  if (outcome.blocked)
    session.note({ type: 'hook', event: 'UserPromptSubmit', outcome: 'blocked', detail: outcome.blocked });
  else if (outcome.stop)
    session.note({ type: 'hook', event: 'UserPromptSubmit', outcome: 'stop', detail: outcome.stop });
  else if (outcome.context)
    session.note({
      type: 'hook',
      event: 'UserPromptSubmit',
      outcome: 'context',
      detail: outcome.suppressOutput ? '(suppressOutput)' : outcome.context,
    });
}
