/**
 * Signals, updates and queries of `agentWorkflow`, in one place. Names are part of the public
 * contract (used from the Temporal CLI, e.g. `temporal workflow signal --name userMessage`).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AgentState,
  ApprovalDecision,
  ApprovalReceipt,
  CheckpointRequest,
  DiffRange,
  DiffRequest,
  ForkPoint,
  InterruptRequest,
  InterruptResult,
  MoveRequest,
  MoveResult,
  QuestionAnswer,
  QuestionReceipt,
  RewindRequest,
  RewindResult,
  SubAgentApprovals,
  TranscriptPage,
  TranscriptRequest,
  UserMessage,
} from '../shared/contract';

export const stateQuery = defineQuery<AgentState>('state');
export const transcriptQuery = defineQuery<TranscriptPage, [TranscriptRequest?]>('transcript');

/** Queue a message for the next turn (never injected mid-turn). */
export const userMessageSignal = defineSignal<[UserMessage]>('userMessage');
/** Close an interactive session once it waits for input. */
export const endSignal = defineSignal('end');
/** Stop the model call or tools in flight. The update of the same name returns once it took effect. */
export const interruptSignal = defineSignal<[InterruptRequest?]>('interrupt');
export const interruptUpdate = defineUpdate<InterruptResult, [InterruptRequest?]>('interrupt');
/** Answer a tool call waiting for approval (permissionMode "ask"), or an ExitPlanMode call's plan (with the `mode` to go on in). */
export const approveToolUpdate = defineUpdate<ApprovalReceipt, [ApprovalDecision]>('approveTool');
/** The same answer as a signal: how a parent passes it on to the sub-agent whose call it is (workflows cannot send updates). */
export const approveToolSignal = defineSignal<[ApprovalDecision]>('approveTool');
/** A sub-agent's calls waiting for approval, sent to its parent, whose `state.pendingApprovals` shows them. */
export const subAgentApprovalsSignal = defineSignal<[SubAgentApprovals]>('subAgentApprovals');
/** Take the conversation, and by default the files, back to just after an earlier turn. */
export const rewindUpdate = defineUpdate<RewindResult, [RewindRequest]>('rewind');
/** What a fork of a turn starts from (its conversation and snapshot): `durable-agent fork` reads it. */
export const checkpointQuery = defineQuery<ForkPoint, [CheckpointRequest]>('checkpoint');
/** The two snapshots between which `durable-agent diff` shows the changes. */
export const diffQuery = defineQuery<DiffRange, [DiffRequest?]>('diff');
/** A session waiting for its lost host (status `waiting_host`) goes on on another host, from its last snapshot. */
export const moveUpdate = defineUpdate<MoveResult, [MoveRequest]>('move');
/** Answer an AskUserQuestion call waiting in `state.pendingQuestions`: each question's text → the answer. */
export const answerQuestionUpdate = defineUpdate<QuestionReceipt, [QuestionAnswer]>('answerQuestion');
