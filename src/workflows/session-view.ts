/**
 * What people see of a running session: the `state` and `transcript` queries, the workflow's
 * current details (Markdown in the Temporal UI), and the typed search attributes AgentTurn,
 * AgentStatus and AgentLastTransition (`temporal workflow list --query "AgentStatus='waiting_approval'"`).
 */
import { setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { AgentState, AgentStatus, ContextEdit, TerminalReason, TranscriptEntry, Transition } from '../shared/contract';
import { AGENT_LAST_TRANSITION, AGENT_STATUS, AGENT_TURN } from '../shared/search-attributes';
import { stateQuery, transcriptQuery } from './definitions';
import { estimateTokens, type LoopState } from './loop';
import type { Steering } from './steering';

export class SessionView {
  readonly transcript: TranscriptEntry[] = [];
  /** Transcript entries of earlier runs of this session (continue-as-new): indexes go on from here. */
  transcriptBase = 0;
  /** Earlier runs of this session. */
  runs = 0;
  readonly state: AgentState;
  private published = { turn: -1, status: '', transition: '' };

  constructor(
    model: string,
    private readonly steering: Steering,
    /** Off for sessions recorded before search attributes were upserted (replay). */
    private readonly searchAttributes: boolean,
  ) {
    this.state = {
      turn: 0,
      model,
      status: 'running_model',
      lastTransition: null,
      transitions: [],
      contextEdits: [],
      estimatedContextTokens: 0,
      usage: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
      currentToolCalls: [],
      pendingApprovals: [],
      queuedMessages: 0,
      lastToolSummary: null,
      reason: null,
    };
    setHandler(stateQuery, () => ({
      ...this.state,
      pendingApprovals: [...this.steering.pendingApprovals],
      queuedMessages: this.steering.queued.length,
    }));
    setHandler(transcriptQuery, (request = {}) => {
      // Indexes run across the whole session; entries of earlier runs are no longer held.
      const fromIndex = Math.max(this.transcriptBase, request.fromIndex ?? 0);
      const local = fromIndex - this.transcriptBase;
      const entries = this.transcript.slice(local, local + Math.max(1, request.limit ?? 200));
      return { entries, nextIndex: fromIndex + entries.length, total: this.transcriptBase + this.transcript.length };
    });
  }

  sync(loop: LoopState): void {
    this.state.turn = loop.turnCount;
    this.state.model = loop.model;
    this.state.usage = loop.usage;
    this.state.lastTransition = loop.lastTransition;
    this.state.estimatedContextTokens = estimateTokens(loop);
  }

  add(entry: TranscriptEntry): void {
    this.transcript.push(entry);
  }

  transition(loop: LoopState, next: Transition, detail?: string): void {
    this.state.transitions.push(next);
    this.add({ type: 'transition', turn: loop.turnCount, transition: next, ...(detail ? { detail } : {}) });
    this.sync(loop);
  }

  edits(loop: LoopState, edits: ContextEdit[], estimatedTokens: number): void {
    if (edits.length === 0) return;
    this.state.contextEdits.push(...edits);
    this.add({ type: 'context', turn: loop.turnCount, edits, estimatedTokens });
  }

  /** Sets the status, refreshes the current details and (when changed) the search attributes. */
  status(status: AgentStatus, loop?: LoopState): void {
    if (loop) this.sync(loop);
    this.state.status = status;
    this.publish();
  }

  finish(loop: LoopState, reason: TerminalReason, error?: string): void {
    this.state.reason = reason;
    this.state.currentToolCalls = [];
    this.add({ type: 'end', turn: loop.turnCount, reason, ...(error ? { error } : {}) });
    this.status('finished', loop);
  }

  publish(): void {
    const view = this.state;
    const approvals = this.steering.pendingApprovals;
    const running =
      view.status === 'finished'
        ? `finished: **${view.reason}**`
        : view.status === 'running_tools'
          ? `running tools: ${view.currentToolCalls.map((call) => call.summary).join(', ')}`
          : view.status === 'waiting_approval'
            ? `**waiting for approval**: ${approvals.map((pending) => `${pending.summary} (\`${pending.toolUseId}\`)`).join(', ')}`
            : view.status === 'waiting_input'
              ? 'waiting for a message (signal `userMessage`, or `end`)'
              : view.status === 'compacting'
                ? 'compacting the conversation'
                : 'waiting for the model';
    setCurrentDetails(
      [
        `**Turn ${view.turn}** · ${running}`,
        `- model: ${view.model}`,
        `- last transition: ${view.lastTransition ?? '—'}`,
        `- context: ~${view.estimatedContextTokens} tokens${view.contextEdits.length ? ` (edits: ${view.contextEdits.join(', ')})` : ''}`,
        `- tokens: ${view.usage.inputTokens} in, ${view.usage.outputTokens} out, ${view.usage.cacheReadInputTokens} read from cache`,
        ...(view.lastToolSummary ? [`- last tools: ${view.lastToolSummary}`] : []),
      ].join('\n'),
    );
    if (!this.searchAttributes) return;
    const transition = view.lastTransition ?? 'none';
    if (this.published.turn === view.turn && this.published.status === view.status && this.published.transition === transition) return;
    this.published = { turn: view.turn, status: view.status, transition };
    upsertSearchAttributes([
      { key: AGENT_TURN, value: view.turn },
      { key: AGENT_STATUS, value: view.status },
      { key: AGENT_LAST_TRANSITION, value: transition },
    ]);
  }
}
