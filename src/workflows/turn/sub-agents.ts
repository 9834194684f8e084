/**
 * An `Agent` call (`Task` in older histories) runs as a child `agentWorkflow`: a sub-agent with a
 * conversation of its own, whose final text is the call's result. Being a child workflow, it
 * survives worker crashes as its parent does, shows in the Temporal UI under the parent (summary
 * `Agent: <description>`, or `Task: …` for a call by that name),
 * and is cancelled with the parent's tool batch (an interrupt, or the parent's cancellation):
 * it then ends as an interrupted session does, with a result the parent waits for.
 */
import {
  ChildWorkflowCancellationType,
  condition,
  isCancellation,
  ParentClosePolicy,
  patched,
  startChild,
} from '@temporalio/workflow';
import type { PlannedToolUse, RunToolOutput } from '../../shared/activity-io';
import { type AgentResult, WORKFLOW_TYPE } from '../../shared/contract';
import { addUsage, type ToolResult, toolErrorResult } from '../../shared/conversation';
import { agentTypes, SUB_AGENT_RESULT_MAX_CHARS, type TaskInput } from '../../shared/sub-agents';
import type { AgentSession } from '../session/agent-session';
import {
  MAX_BUDGET_PATCH,
  SUB_AGENT_BOUNDS_PATCH,
  SUB_AGENT_DEFINITIONS_PATCH,
  WORKTREE_SUB_AGENTS_PATCH,
} from '../core/features';
import { subAgentBudget } from '../core/budget';
import { failureMessage } from '../core/failures';
import {
  type ParentView,
  type SubAgentStart,
  subAgentInput,
  subAgentWorkflowId,
  toolsLeftOutNote,
} from '../core/sub-agent-input';
import { currentPermissionMode } from './permissions';
import { forkWorktree, mergeBack, mergeTurn, type Worktree, type WorktreeSession } from './worktrees';
import { worktreeNote } from '../core/worktree-report';

/** What a sub-agent uses of the session: a phase takes what it needs, not the whole session. */
export type SubAgentSession = Pick<
  AgentSession,
  'id' | 'input' | 'note' | 'permissionMode' | 'prepared' | 'state' | 'steering' | 'update'
> &
  WorktreeSession;

/** Sub-agents of each session running now: at most `maxParallelAgents` (a workflow-local count, replayed alike). */
const running = new WeakMap<SubAgentSession, { count: number }>();

export async function runSubAgent(session: SubAgentSession, call: PlannedToolUse): Promise<RunToolOutput> {
  const task = call.input as TaskInput;
  // Asked at each start, like the bound below: a start already in a history replays as recorded.
  const claudeCodeDefinitions = patched(SUB_AGENT_DEFINITIONS_PATCH);
  const types = agentTypes(session.input.agents, session.prepared.repoAgents, { claudeCode: claudeCodeDefinitions });
  // Asked at each start, not once per run (see features.ts): a session running since before the
  // bound bounds its next sub-agents; a start already in its history has no marker and replays as recorded.
  const start = subAgentInput(session.input, parentView(session), call.id, task, types, {
    boundByParent: patched(SUB_AGENT_BOUNDS_PATCH),
    claudeCodeDefinitions,
  });
  if (!start.ok) return { result: toolErrorResult(call, start.error) };
  if (start.toolsLeftOut.length) session.note(toolsLeftOutNote(call.id, start.type.name, start.toolsLeftOut));
  // Issue 27: a writing sub-agent takes its place in the merge order now, before anything is awaited.
  const order =
    (task.isolation ?? start.type.isolation) === 'worktree' && patched(WORKTREE_SUB_AGENTS_PATCH)
      ? mergeTurn(session)
      : undefined;

  const slots = running.get(session) ?? { count: 0 };
  running.set(session, slots);
  try {
    // Checked again after each wake-up: calls woken together take the free slots one by one.
    while (slots.count >= session.input.maxParallelAgents)
      await condition(() => slots.count < session.input.maxParallelAgents);
    // Issue 26: a session with a budget gives the sub-agent what it has left once it may start
    // (siblings that ended meanwhile counted); nothing left: no start, the call says why.
    const budget = subAgentBudget(session.state.usage, session.input.maxBudgetUsd);
    if (budget.kind !== 'unbounded' && patched(MAX_BUDGET_PATCH)) {
      if (budget.kind === 'spent') return { result: toolErrorResult(call, budget.error) };
      start.input.maxBudgetUsd = budget.maxBudgetUsd;
    }
    slots.count++;
    try {
      return await runChild(session, call, start, order);
    } finally {
      slots.count--;
    }
  } finally {
    order?.done();
  }
}

function parentView(session: SubAgentSession): ParentView {
  return {
    workflowId: session.id,
    workdir: session.state.workdir,
    model: session.state.model,
    permissionMode: currentPermissionMode(session),
    ...(session.prepared.host ? { host: session.prepared.host } : {}),
  };
}

/** The child workflow (in its worktree, for a writing sub-agent), its result and, for a writing one, its merge. */
async function runChild(
  session: SubAgentSession,
  call: PlannedToolUse,
  start: Extract<SubAgentStart, { ok: true }>,
  order: { before: Promise<void> } | undefined,
): Promise<RunToolOutput> {
  const task = call.input as TaskInput;
  const workflowId = subAgentWorkflowId(session.id, call.id);
  let tree: Worktree | undefined;
  if (order) {
    const made = await forkWorktree(session, workflowId, { id: call.id, description: task.description });
    if ('error' in made) return { result: toolErrorResult(call, made.error) };
    tree = made;
    start.input.workdir = made.worktree;
    if (made.host) start.input.host = made.host;
    // The child is told where it works and what becomes of it (as its type's prompt goes on).
    const typePrompt = typeof start.input.systemPrompt === 'string' ? start.input.systemPrompt : undefined;
    start.input.systemPrompt = [typePrompt, worktreeNote(session.state.workdir, made.worktree)]
      .filter(Boolean)
      .join('\n\n');
  }
  try {
    const child = await startChild<(input: unknown) => Promise<AgentResult>>(WORKFLOW_TYPE, {
      workflowId,
      args: [start.input],
      // A cancelled batch waits for the child to stop and hand back its result (what it did so far).
      cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      // A parent terminated or timed out asks its sub-agents to stop; they end with a result.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: `${call.name}: ${task.description}${tree ? ` · worktree ${tree.worktree.split('/').pop()}` : ''}`,
      staticDetails: `Sub-agent (${start.type.name}) of ${session.id}, for tool call ${call.id}${tree ? `, in the worktree ${tree.worktree}` : ''}.\n\n${task.prompt.slice(0, 2_000)}`,
    });
    const result = await child.result();
    session.update({ ...session.state, usage: addUsage(session.state.usage, result.usage) });
    const answer = subAgentResult(call, start.type.name, workflowId, result);
    if (!tree || !order) return { result: answer };
    const merged = await mergeBack(session, order, { id: call.id, description: task.description }, tree, result);
    return { result: withMergeReport(answer, merged.text) };
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { result: toolErrorResult(call, `The sub-agent ${workflowId} failed: ${failureMessage(error)}`) };
  } finally {
    // Its calls that were waiting for approval are no longer waiting.
    session.steering.dropForwarded((child) => child === workflowId);
  }
}

/** The sub-agent's answer, then what was merged of its worktree. */
function withMergeReport(answer: ToolResult, report: string): ToolResult {
  const text = 'text' in answer.content ? answer.content.text : '';
  return { ...answer, content: { text: `${text}\n\n${report}` } };
}

/** What the parent's model reads: the sub-agent's final text, or why it has none. */
export function subAgentResult(
  call: { id: string; name: string },
  type: string,
  workflowId: string,
  result: AgentResult,
): ToolResult {
  const text = cutMiddle(result.finalText.trim(), SUB_AGENT_RESULT_MAX_CHARS);
  if (result.reason === 'completed')
    return {
      toolUseId: call.id,
      isError: false,
      content: { text: text || '(The sub-agent finished without a final message.)' },
      toolName: call.name,
    };
  const why = `The ${type} sub-agent (${workflowId}) stopped before it finished: ${result.reason}${result.error ? ` (${result.error})` : ''} after ${result.turnCount} turns.`;
  return toolErrorResult(call, text ? `${why} Its last message:\n${text}` : why);
}

function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n\n[… ${text.length - 2 * half} characters of the sub-agent's answer cut …]\n\n${text.slice(-half)}`;
}
