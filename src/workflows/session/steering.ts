/**
 * The people steering a session: queued messages, `end`, `interrupt`, tool approvals. Signals
 * and updates are recorded in history, so a worker crash between a request and its effect loses
 * nothing: the new worker replays them and carries them out.
 *
 * The handlers (registered in one block by the driver, agent-workflow.ts) only call the methods
 * below, so everything here is plain state that unit tests drive directly.
 */
import { CancellationScope, condition, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import type { PlannedToolUse } from '../../shared/activity-io';
import type { ApprovalDecision, ApprovalReceipt, PendingApproval, SubAgentApprovals } from '../../shared/contract';
import type { PermissionMode } from '../../shared/permission-modes';
import {
  answerProblem,
  type ModeAfterPlan,
  type PendingQuestion,
  PLAN_SHOWN_CHARS,
  type Question,
  type QuestionAnswer,
  type QuestionReceipt,
} from '../../shared/plan-mode';
import { approveToolSignal, subAgentApprovalsSignal } from '../definitions';
import { type DroppedSignal, DroppedSignals } from './malformed-signals';

/** A person's answer to a call waiting for approval; `mode`: an approved plan's mode to go on in. */
export type ApprovalAnswer =
  { decision: 'allow' | 'deny'; feedback?: string; mode?: ModeAfterPlan } | { decision: 'timeout' };

/** What a run hands to the next when it continues as new. */
export interface CarriedSteering {
  queued: string[];
  /** `end` arrived (absent in what runs before it carried). */
  ended?: boolean;
  /** How many of `queued` their UserPromptSubmit hooks saw already (absent: none). */
  screened?: number;
  /** The permission mode the run ended in (absent in what runs before it carried: the input's). */
  permissionMode?: PermissionMode;
}

export class Steering {
  /** Messages waiting for the next turn. */
  readonly queued: string[] = [];
  /** How many of them (from the first) their UserPromptSubmit hooks have seen (prompt-hooks.ts). */
  screened = 0;
  ended = false;
  readonly pendingApprovals: PendingApproval[] = [];
  private readonly answers = new Map<string, { decision: 'allow' | 'deny'; feedback?: string; mode?: ModeAfterPlan }>();
  /** AskUserQuestion calls waiting for `answerQuestion`, and the answers that came. */
  readonly pendingQuestions: PendingQuestion[] = [];
  private readonly questionAnswers = new Map<string, Record<string, string>>();
  /**
   * The session's permission mode once EnterPlanMode or an approved plan changed it
   * (AgentSession.setPermissionMode); continue-as-new carries it. Unset: the mode the session
   * started in (its input and settings). The approval gate reads it through `AgentSession.permissionMode()`.
   */
  permissionMode?: PermissionMode;
  /** Calls of sub-agents waiting for approval: the child workflow each answer is passed on to. */
  private readonly forwardedTo = new Map<string, string>();
  /** This session is a sub-agent: its parent is told of every change to the calls waiting here. */
  private parent: { workflowId: string; description: string } | undefined;
  /** The model call or tool batch that an interrupt cancels. */
  private inFlight: { stopping: 'model' | 'tools'; cancel: () => void } | null = null;
  private interruptRequested = false;
  private interruptsRequested = 0;
  private interruptsHandled = 0;
  /** False once the session is over: an interrupt then has nothing to stop. */
  private active = true;
  /** While true, work started in `interruptible` is cancelled at once (a rewind waits to be carried out). */
  private halted: () => boolean = () => false;

  /** Signals whose input did not parse (malformed-signals.ts): the session puts them in its transcript. */
  readonly droppedSignals = new DroppedSignals();

  /**
   * `onChange` refreshes what people see (the view) after a signal or update changed something;
   * the session sets it (`showChangesIn`) once the signals that arrived before its run are in.
   */
  constructor(private onChange: () => void = () => undefined) {}

  /** From now on, every change people make is shown (the view publishes). */
  showChangesIn(view: { publish(): void }): void {
    this.onChange = () => view.publish();
  }

  /** A signal whose input did not parse: noted for the transcript, and shown. */
  messageDropped(note: DroppedSignal): void {
    this.droppedSignals.note(note);
    this.onChange();
  }

  /** The `interrupt` update: stops what is in flight and returns once the session has acted on it. */
  async interruptAndWait(): Promise<{ stopped: 'model' | 'tools' | 'nothing' }> {
    const stopped = this.requestInterrupt();
    if (stopped === 'nothing') return { stopped };
    const ticket = this.interruptsRequested;
    await condition(() => this.interruptsHandled >= ticket);
    return { stopped };
  }

  /** A parent passing on an answer: a stale one (the call already ended) is dropped. */
  passOnAnswer(answer: ApprovalDecision | null | undefined): void {
    if (!answer || !this.pendingApprovals.some((pending) => pending.toolUseId === answer.toolUseId)) return;
    if (answer.decision === 'allow' || answer.decision === 'deny') this.answer(answer);
  }

  /** Makes this session report its calls waiting for approval to its parent (it is a sub-agent). */
  reportApprovalsTo(parent: { workflowId: string; description: string }): void {
    this.parent = parent;
  }

  /** A sub-agent's calls waiting for approval replace what it reported before; they show as this session's. */
  subAgentWaiting({ workflowId, description, pending }: SubAgentApprovals): void {
    this.dropForwarded((child) => child === workflowId);
    for (const call of pending) {
      this.forwardedTo.set(call.toolUseId, workflowId);
      this.pendingApprovals.push({ ...call, agent: call.agent ?? { workflowId, description } });
    }
    this.approvalsChanged();
  }

  receiveMessage(text: unknown): void {
    if (typeof text === 'string' && text.trim()) this.queued.push(text);
    this.onChange();
  }

  end(): void {
    this.ended = true;
    this.onChange();
  }

  /** Cancels what is in flight, and whatever starts while `halted` holds, without it counting as an interrupt. */
  stopInFlight(halted: () => boolean): void {
    this.halted = halted;
    this.inFlight?.cancel();
  }

  /** Cancels what is in flight; says what that was. */
  requestInterrupt(): 'model' | 'tools' | 'nothing' {
    if (!this.active || !this.inFlight) return 'nothing';
    this.interruptsRequested++;
    this.interruptRequested = true;
    this.inFlight.cancel();
    return this.inFlight.stopping;
  }

  checkAnswer(answer: ApprovalDecision | undefined): void {
    if (!answer || !this.pendingApprovals.some((pending) => pending.toolUseId === answer.toolUseId)) {
      throw new Error(`No tool call ${answer?.toolUseId} is waiting for approval`);
    }
    if (answer.decision !== 'allow' && answer.decision !== 'deny')
      throw new Error('decision must be "allow" or "deny"');
    const pending = this.pendingApprovals.find((call) => call.toolUseId === answer.toolUseId);
    if (answer.mode !== undefined && pending?.plan === undefined)
      throw new Error('mode is only for approving a plan (an ExitPlanMode call)');
  }

  /** The `answerQuestion` validator: a question waiting under that id, and every one of its questions answered. */
  checkQuestionAnswer(answer: QuestionAnswer | undefined): void {
    const pending = this.pendingQuestions.find((waiting) => waiting.toolUseId === answer?.toolUseId);
    if (!answer || !pending) throw new Error(`No AskUserQuestion call ${answer?.toolUseId} is waiting for an answer`);
    const problem = answerProblem(pending, answer.answers);
    if (problem) throw new Error(`Invalid answer: ${problem}`);
  }

  answerQuestion(answer: QuestionAnswer): QuestionReceipt {
    this.questionAnswers.set(answer.toolUseId, answer.answers);
    this.onChange();
    return { toolUseId: answer.toolUseId, answered: Object.keys(answer.answers).length };
  }

  /** Waits (durably: days if need be, no timeout) for the answers to an AskUserQuestion call; an interrupt cancels it. */
  async awaitAnswers(call: PlannedToolUse, questions: Question[]): Promise<Record<string, string>> {
    this.pendingQuestions.push({ toolUseId: call.id, questions });
    this.onChange();
    try {
      await condition(() => this.questionAnswers.has(call.id));
      return this.questionAnswers.get(call.id)!;
    } finally {
      const index = this.pendingQuestions.findIndex((pending) => pending.toolUseId === call.id);
      if (index >= 0) this.pendingQuestions.splice(index, 1);
      this.onChange();
    }
  }

  answer(answer: ApprovalDecision): ApprovalReceipt {
    const child = this.forwardedTo.get(answer.toolUseId);
    if (child !== undefined) {
      // Fire and forget: the sub-agent reports its calls again once the answer took effect.
      void CancellationScope.nonCancellable(() =>
        getExternalWorkflowHandle(child).signal(approveToolSignal, answer),
      ).catch(() => undefined);
      this.dropForwarded((_, toolUseId) => toolUseId === answer.toolUseId);
      this.approvalsChanged();
      return { toolUseId: answer.toolUseId, decision: answer.decision };
    }
    this.answers.set(answer.toolUseId, {
      decision: answer.decision,
      ...(answer.feedback ? { feedback: answer.feedback } : {}),
      ...(answer.mode ? { mode: answer.mode } : {}),
    });
    this.onChange();
    return { toolUseId: answer.toolUseId, decision: answer.decision };
  }

  /**
   * Runs a model call or a tool batch in its own cancellation scope, which an interrupt cancels.
   * (`scope` is a parameter so that unit tests can run this outside a workflow.)
   */
  async interruptible<T>(
    stopping: 'model' | 'tools',
    work: () => Promise<T>,
    scope: Pick<CancellationScope, 'run' | 'cancel'> = new CancellationScope(),
  ): Promise<T> {
    this.inFlight = { stopping, cancel: () => scope.cancel() };
    if (this.halted()) scope.cancel();
    try {
      return await scope.run(work);
    } finally {
      this.inFlight = null;
    }
  }

  /** An interrupt arrived that nothing has taken yet (the work it cancelled may have finished anyway). */
  interruptPending(): boolean {
    return this.interruptRequested;
  }

  /** Whether a cancellation came from `interrupt` (as opposed to cancelling the workflow). */
  takeInterrupt(): boolean {
    const interrupted = this.interruptRequested;
    this.interruptRequested = false;
    return interrupted;
  }

  /** The interrupt took effect: `interrupt` updates waiting for it return. */
  interruptDone(): void {
    this.interruptsHandled = this.interruptsRequested;
  }

  /** The session is over: nothing is left to interrupt, and waiting updates return. */
  close(): void {
    this.active = false;
    this.interruptDone();
  }

  takeQueued(): string[] {
    this.screened = 0;
    return this.queued.splice(0, this.queued.length);
  }

  /** Waits (durably: hours or days) for a person's answer, or the timeout. `plan`: an ExitPlanMode call's plan, shown. */
  async awaitApproval(call: PlannedToolUse, timeoutMs: number, plan?: string): Promise<ApprovalAnswer> {
    this.pendingApprovals.push({
      toolUseId: call.id,
      name: call.name,
      summary: call.plan.ok ? call.plan.summary : call.name,
      input: call.input,
      ...(plan !== undefined ? { plan: plan.slice(0, PLAN_SHOWN_CHARS) } : {}),
    });
    this.approvalsChanged();
    try {
      const answered = await condition(() => this.answers.has(call.id), timeoutMs);
      return answered ? this.answers.get(call.id)! : { decision: 'timeout' };
    } finally {
      const index = this.pendingApprovals.findIndex((pending) => pending.toolUseId === call.id);
      if (index >= 0) this.pendingApprovals.splice(index, 1);
      this.approvalsChanged();
    }
  }

  /** Forgets sub-agents' calls that match (by child workflow id and call id). */
  dropForwarded(matches: (child: string, toolUseId: string) => boolean): void {
    for (const [toolUseId, child] of [...this.forwardedTo]) {
      if (!matches(child, toolUseId)) continue;
      this.forwardedTo.delete(toolUseId);
      const index = this.pendingApprovals.findIndex((pending) => pending.toolUseId === toolUseId);
      if (index >= 0) this.pendingApprovals.splice(index, 1);
    }
  }

  /** People see the change; a sub-agent's parent is told (in a scope of its own: a cancelled turn still reports it). */
  private approvalsChanged(): void {
    this.onChange();
    const parent = this.parent;
    if (!parent) return;
    const report: SubAgentApprovals = {
      workflowId: workflowInfo().workflowId,
      description: parent.description,
      pending: [...this.pendingApprovals],
    };
    void CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(parent.workflowId).signal(subAgentApprovalsSignal, report),
    ).catch(() => undefined);
  }

  /** Messages still queued travel to the next run. */
  carry(): CarriedSteering {
    const screened = this.screened;
    return {
      queued: this.takeQueued(),
      ...(this.ended ? { ended: true } : {}),
      ...(screened ? { screened } : {}),
      ...(this.permissionMode ? { permissionMode: this.permissionMode } : {}),
    };
  }

  restore(carried: CarriedSteering): void {
    // Messages that reached this run before its handlers were set come first, unscreened: screening then starts over.
    if (this.queued.length === 0) this.screened = carried.screened ?? 0;
    this.queued.push(...carried.queued);
    if (carried.ended) this.ended = true;
    if (carried.permissionMode) this.permissionMode = carried.permissionMode;
  }
}
