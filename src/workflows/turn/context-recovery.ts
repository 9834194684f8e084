/**
 * The recovery layers as workflow branches. Before a new turn's model call, the context
 * pipeline (snip, microcompact, then autocompact); after a withheld error, the recovery steps
 * (context collapse, media strip, reactive compaction) until the loop can call the model again
 * or must stop. Decisions are the pure functions of loop.ts and context-plan.ts; this file only
 * runs the activities they ask for, each recorded in history, so a worker that dies during a
 * recovery resumes it exactly once.
 */
import { isCancellation } from '@temporalio/workflow';
import type { CallModelOutcome, PrepareContextInput, PrepareContextOutput } from '../../shared/activity-io';
import { addUsage } from '../../shared/conversation';
import { COMPACT_OPTIONS, compactConversation, CONTEXT_OPTIONS, prepareContext } from '../activity-options';
import type { AgentSession } from '../session/agent-session';
import { afterAutocompact, editThreshold, needsAutocompact, needsContextEdits } from '../core/context-plan';
import { failureMessage } from '../core/failures';
import { afterCollapse, afterMediaStrip, afterReactiveCompact, type SettledStep, type Step } from '../core/loop';
import { absorbNewContext, estimateTokens, forgetShownInstructions } from '../core/loop-state';
import { compactRequest, contextEditRequest } from '../core/requests';
import { afterCompaction, beforeCompaction } from './session-hooks';
import type { ToolHookSession } from './tool-hooks';

/** What the context pipeline and the recovery branches uses of the session: a phase takes what it needs, not the whole session. */
export type ContextSession = Pick<
  AgentSession,
  'features' | 'note' | 'overheadTokens' | 'setStatus' | 'showContextEdits' | 'state' | 'update' | 'workspace'
> &
  ToolHookSession;

/** The context pipeline before a new turn's model call: the cheap edits, then autocompact. */
export async function prepareTurnContext(session: ContextSession): Promise<void> {
  if (needsContextEdits(session.state)) {
    const state = session.state;
    const edited = await editContext(
      session,
      `turn ${state.turnCount} · context`,
      ['snip', 'microcompact'],
      editThreshold(state),
    );
    if (edited) {
      const tokens = edited.applied.length > 0 ? edited.estimatedTokens : estimateTokens(state);
      const absorbed = absorbNewContext(session.state, edited.conversationRef, edited.messageCount, tokens);
      const next = edited.applied.length > 0 ? forgetShownInstructions(absorbed) : absorbed;
      session.update(session.features.contextEditsDegradeAndPace ? { ...next, contextEditedAt: tokens } : next);
      session.showContextEdits(edited.applied, tokens);
    }
  }
  if (needsAutocompact(session.state)) {
    const compacted = await compact(session, 'autocompact');
    session.update(afterAutocompact(session.state, compacted.ok));
  }
}

/** Carries out recovery steps (one may lead to another: collapse, then reactive compaction, then giving up). */
export async function recover(session: ContextSession, step: Step, outcome: CallModelOutcome): Promise<SettledStep> {
  const message = outcome.kind === 'response' ? '' : outcome.message;
  while (step.kind === 'edit_context' || step.kind === 'compact') {
    if (step.kind === 'compact') {
      step = afterReactiveCompact(await compact(session, 'reactive'), message);
      continue;
    }
    const edit = step.edit;
    const edited = await editContext(session, edit === 'collapse' ? 'context collapse' : 'strip media', [edit], 0);
    const changed = edited !== undefined && edited.applied.length > 0;
    if (changed) {
      session.update(
        forgetShownInstructions(
          absorbNewContext(session.state, edited.conversationRef, edited.messageCount, edited.estimatedTokens),
        ),
      );
      session.showContextEdits(edited.applied, edited.estimatedTokens);
    }
    if (edit === 'collapse') {
      const next = afterCollapse(session.state, changed, message);
      session.update(next.state);
      step = next.step;
    } else {
      step = afterMediaStrip(changed, message);
    }
  }
  return step;
}

/**
 * Runs context edits; undefined when they failed (flag `contextEditsDegradeAndPace`), in which case the
 * step is skipped and the transcript says why: a slow or broken store degrades the context
 * pipeline, it does not end the session without a result.
 */
async function editContext(
  session: ContextSession,
  summary: string,
  steps: PrepareContextInput['steps'],
  targetTokens: number,
): Promise<PrepareContextOutput | undefined> {
  try {
    const request = {
      ...contextEditRequest(session.state, steps, targetTokens, session.overheadTokens),
      ...session.workspace.turnEnd(session.state),
    };
    const edited = await prepareContext.executeWithOptions({ ...CONTEXT_OPTIONS, summary }, [request]);
    session.workspace.recordCheckpointRef(edited.checkpointRef);
    return edited;
  } catch (error) {
    if (isCancellation(error) || !session.features.contextEditsDegradeAndPace) throw error;
    session.note({
      type: 'context',
      edits: [],
      estimatedTokens: estimateTokens(session.state),
      error: `${steps.join(', ')} skipped: ${failureMessage(error)}`,
    });
    return undefined;
  }
}

/** Summarises the conversation; says whether it worked (failures are the caller's to weigh). */
async function compact(
  session: ContextSession,
  reason: 'autocompact' | 'reactive',
): Promise<{ ok: true } | { ok: false; error: string }> {
  session.setStatus('compacting');
  // PreCompact hooks (when the session has some) may block it: it then counts as not done.
  const blocked = await beforeCompaction(session);
  if (blocked !== undefined) return { ok: false, error: `A PreCompact hook blocked the compaction: ${blocked}` };
  try {
    const compacted = await compactConversation.executeWithOptions(
      { ...COMPACT_OPTIONS, summary: reason === 'reactive' ? 'compact (reactive)' : 'compact (auto)' },
      [{ ...compactRequest(session.state, reason), ...session.workspace.turnEnd(session.state) }],
    );
    session.workspace.recordCheckpointRef(compacted.checkpointRef);
    const state = forgetShownInstructions(
      absorbNewContext(session.state, compacted.conversationRef, 1, compacted.estimatedTokens),
    );
    session.update({ ...state, usage: addUsage(state.usage, compacted.usage), contextEditedAt: undefined });
    session.showContextEdits([reason === 'reactive' ? 'reactive_compact' : 'autocompact'], compacted.estimatedTokens);
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { ok: false, error: failureMessage(error) };
  }
  // PostCompact hooks, then SessionStart hooks of source `compact` (their context joins the summary).
  await afterCompaction(session);
  return { ok: true };
}
