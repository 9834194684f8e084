/**
 * One session as the driver sees it: the loop state, what people see of it (the view) and what
 * people ask of it (steering), kept in step. The driver and its phases change the session only
 * through these methods, so every change reaches the `state` query, the transcript and the UI.
 */
import { allHandlersFinished, CancellationScope, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { CallModelOutcome, PlannedToolUse, PrepareSessionOutput } from '../shared/activity-io';
import type { AgentResult, AgentStatus, ContextEdit, TerminalReason, TranscriptEntry } from '../shared/contract';
import { contentPreview, type ToolResult } from '../shared/conversation';
import type { ResolvedAgentInput, StopHook } from '../shared/input';
import { CLOSE_SESSION_OPTIONS, closeSession, prepareSession, SESSION_OPTIONS } from './activity-options';
import { afterModel, beginTurn, type Finish, type Step, withoutRecovery } from './loop';
import { injectMessages, initialLoopState, type LoopState, NEW_TURN, toResult } from './loop-state';
import { summaryOf } from './run-tools';
import { type CarriedView, SessionView } from './session-view';
import { type CarriedSteering, Steering } from './steering';

/** Behaviour that sessions recorded before it existed replay without (see `patched()` in the driver). */
export interface Features {
  recoveryLayers: boolean;
  steering: boolean;
  /**
   * Issue 9's fixes: cancellation ends with a result, every path continues as new at the
   * boundary, a failed context step degrades, a stop-hook block keeps the reactive-compaction
   * budget, a batch waits for every call's outcome, the real context window is learned.
   */
  hardening: boolean;
}

/** What one run hands to the next when it continues as new (the `resume` input field). Plain JSON. */
export interface CarriedState extends CarriedSteering, CarriedView {
  [key: string]: unknown;
  session: PrepareSessionOutput;
  loop: LoopState;
}

/** A transcript entry without its turn, which the session fills in. */
type Entry = TranscriptEntry extends infer E ? (E extends TranscriptEntry ? Omit<E, 'turn'> : never) : never;

export class AgentSession {
  readonly id = workflowInfo().workflowId;
  readonly steering: Steering;
  private readonly view: SessionView;
  private loop!: LoopState;
  private prepared!: PrepareSessionOutput;
  private turnsAtRunStart = 0;
  /** What a cancellation of the workflow would stop now (follows the status). */
  private running: 'model' | 'tools' = 'model';

  private constructor(
    readonly input: ResolvedAgentInput,
    readonly features: Features,
  ) {
    // Signals that arrived before this run are delivered as soon as their handlers are set:
    // before the view exists, so they publish nothing yet (recorded histories depend on it).
    this.steering = new Steering(() => this.view?.publish());
    this.steering.listen();
    this.view = new SessionView(input.model ?? '', this.steering, features.steering);
    this.view.listen();
  }

  /** Takes over what an earlier run carried, or records the task and prepares the session on the worker. */
  static async open(input: ResolvedAgentInput, features: Features): Promise<AgentSession> {
    const session = new AgentSession(input, features);
    const resumed = input.resume as CarriedState | undefined;
    if (resumed) {
      session.steering.restore(resumed);
      session.view.restore(resumed, resumed.loop.turnCount);
    } else {
      session.view.add({ type: 'user', turn: 0, text: input.prompt });
    }
    session.prepared =
      resumed?.session ??
      (await prepareSession.executeWithOptions({ ...SESSION_OPTIONS, summary: 'prepare session' }, [
        {
          workdir: input.workdir,
          model: input.model,
          allowedTools: input.allowedTools,
          systemPromptAppend: input.systemPrompt,
          prompt: input.prompt,
          startedAt: new Date(workflowInfo().startTime).toISOString(),
          ...(input.trustRepoHooks ? { trustRepoHooks: true } : {}),
        },
      ]));
    session.view.prepared(session.prepared, { note: !resumed });
    session.loop = resumed?.loop ?? initialLoopState(input, session.prepared, { hardening: features.hardening });
    session.turnsAtRunStart = session.loop.turnCount;
    return session;
  }

  get state(): LoopState {
    return this.loop;
  }

  /** Stop hooks of the input, then those of the workdir's settings (read when the session started). */
  get stopHooks(): StopHook[] {
    return [...this.input.stopHooks, ...(this.prepared.settingsStopHooks ?? [])];
  }

  /** Estimated tokens of the system prompt and tool definitions. */
  get overheadTokens(): number {
    return this.prepared.overheadTokens;
  }

  get turnsThisRun(): number {
    return this.loop.turnCount - this.turnsAtRunStart;
  }

  /** A new turn takes the messages people queued; a retry of the current turn does not. */
  beginTurn(): { kind: 'call_model'; newTurn: boolean } | { kind: 'finish'; reason: TerminalReason } {
    const newTurn = NEW_TURN.includes(this.loop.lastTransition);
    if (newTurn) this.loop = injectMessages(this.loop, this.steering.takeQueued());
    const turn = beginTurn(this.loop);
    if (turn.kind === 'finish') return turn;
    this.loop = turn.state;
    return { kind: 'call_model', newTurn };
  }

  /** Takes in the model's outcome and says what follows (the old behaviour where a feature is off). */
  afterModel(outcome: CallModelOutcome): Step {
    const decision = afterModel(this.loop, outcome, { learnWindow: this.features.hardening });
    this.loop = decision.state;
    if (outcome.kind === 'response') {
      this.note({ type: 'assistant', text: outcome.text, stopReason: outcome.stopReason, usage: outcome.usage });
    }
    return this.features.recoveryLayers ? decision.step : withoutRecovery(decision.step, outcome);
  }

  /** The loop state changed, with no transition to show (context, usage, files read). */
  update(next: LoopState): void {
    this.loop = next;
  }

  /** The loop goes on for the reason in `next.lastTransition`, shown to people. */
  goOn(next: LoopState, detail?: string): void {
    this.loop = next;
    this.view.transition(next, next.lastTransition!, detail);
  }

  status(status: AgentStatus): void {
    if (status === 'running_tools' || status === 'waiting_approval') this.running = 'tools';
    if (status === 'running_model' || status === 'compacting') this.running = 'model';
    this.view.status(status, this.loop);
  }

  /** The workflow was cancelled: the session ends like an interrupted one, with a result. */
  cancelled(): Finish {
    return this.running === 'model'
      ? { kind: 'finish', reason: 'aborted_streaming', error: 'Cancelled while the model was responding' }
      : { kind: 'finish', reason: 'aborted_tools', error: 'Cancelled while tools were running' };
  }

  /** A transcript entry of the current turn. */
  note(entry: Entry): void {
    this.view.add({ ...entry, turn: this.loop.turnCount } as TranscriptEntry);
  }

  contextEdited(edits: ContextEdit[], estimatedTokens: number): void {
    this.view.edits(this.loop, edits, estimatedTokens);
  }

  showToolCalls(calls: PlannedToolUse[]): void {
    this.view.toolCalls(calls.map((call) => ({ toolUseId: call.id, name: call.name, summary: summaryOf(call) })));
  }

  toolResults(toolUses: PlannedToolUse[], results: ToolResult[]): void {
    results.forEach((result, index) =>
      this.note({ type: 'tool_result', toolUseId: result.toolUseId, name: toolUses[index]?.name ?? '', isError: result.isError, preview: contentPreview(result.content) }),
    );
  }

  toolSummary(turn: number, text: string): void {
    this.view.toolSummary(turn, text);
  }

  /** Ends the run with its result, once update handlers (an interrupt waiting for its effect) have returned. */
  async finish(reason: TerminalReason, error?: string): Promise<AgentResult> {
    this.steering.close();
    this.view.finish(this.loop, reason, error);
    if (this.features.hardening) {
      // Even in a cancelled workflow (else the run would end CANCELED instead of with its result).
      await CancellationScope.nonCancellable(async () => {
        // No call of this session can be retried any more: its edit journal goes. Best effort.
        await closeSession.executeWithOptions({ ...CLOSE_SESSION_OPTIONS, summary: 'close session' }, [{ sessionId: this.id }]).catch(() => undefined);
        await condition(allHandlersFinished);
      });
    } else {
      await condition(allHandlersFinished);
    }
    return toResult(this.loop, reason, error);
  }

  /** Hands the session to a fresh run with the same workflow id (`rawInput`, plus what is carried). */
  async continueAsNew(rawInput: unknown): Promise<never> {
    await condition(allHandlersFinished);
    const { resume: _previous, ...fields } = rawInput as Record<string, unknown>;
    const carried: CarriedState = { session: this.prepared, loop: this.loop, ...this.steering.carry(), ...this.view.carry() };
    return continueAsNew<(input: unknown) => Promise<AgentResult>>({ ...fields, resume: carried });
  }
}
