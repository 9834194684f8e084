/**
 * The people steering a session: queued messages, `end`, `interrupt`, tool approvals. Signals
 * and updates are recorded in history, so a worker crash between a request and its effect loses
 * nothing: the new worker replays them and carries them out.
 */
import { CancellationScope, condition, setHandler } from '@temporalio/workflow';
import type { PlannedToolUse } from '../shared/activity-io';
import type { PendingApproval } from '../shared/contract';
import { approveToolUpdate, endSignal, interruptSignal, interruptUpdate, userMessageSignal } from './definitions';

export type ApprovalAnswer = { decision: 'allow' | 'deny'; feedback?: string } | { decision: 'timeout' };

export class Steering {
  /** Messages waiting for the next turn. */
  readonly queued: string[] = [];
  ended = false;
  readonly pendingApprovals: PendingApproval[] = [];
  private readonly answers = new Map<string, { decision: 'allow' | 'deny'; feedback?: string }>();
  /** The model call or tool batch that an interrupt cancels. */
  private scope: { scope: CancellationScope; stopping: 'model' | 'tools' } | null = null;
  private interruptRequested = false;
  private interruptsRequested = 0;
  private interruptsHandled = 0;
  /** False once the session is over: an interrupt then has nothing to stop. */
  active = true;

  constructor(private readonly onChange: () => void) {
    setHandler(userMessageSignal, ({ text }) => {
      if (typeof text === 'string' && text.trim()) this.queued.push(text);
      this.onChange();
    });
    setHandler(endSignal, () => {
      this.ended = true;
      this.onChange();
    });
    setHandler(interruptSignal, () => {
      this.requestInterrupt();
    });
    setHandler(interruptUpdate, async () => {
      const stopped = this.requestInterrupt();
      if (stopped === 'nothing') return { stopped };
      const ticket = this.interruptsRequested;
      await condition(() => this.interruptsHandled >= ticket);
      return { stopped };
    });
    setHandler(
      approveToolUpdate,
      (answer) => {
        this.answers.set(answer.toolUseId, { decision: answer.decision, ...(answer.feedback ? { feedback: answer.feedback } : {}) });
        this.onChange();
        return { toolUseId: answer.toolUseId, decision: answer.decision };
      },
      {
        // Rejected before it enters history: unknown ids and bad decisions never reach the workflow.
        validator: (answer) => {
          if (!answer || !this.pendingApprovals.some((pending) => pending.toolUseId === answer.toolUseId)) {
            throw new Error(`No tool call ${answer?.toolUseId} is waiting for approval`);
          }
          if (answer.decision !== 'allow' && answer.decision !== 'deny') throw new Error('decision must be "allow" or "deny"');
        },
      },
    );
  }

  private requestInterrupt(): 'model' | 'tools' | 'nothing' {
    if (!this.active) return 'nothing';
    const stopping = this.scope?.stopping ?? 'nothing';
    if (this.scope) {
      this.interruptsRequested++;
      this.interruptRequested = true;
      this.scope.scope.cancel();
    }
    return stopping;
  }

  /** Runs a model call or a tool batch so that an interrupt can cancel it. */
  async interruptible<T>(stopping: 'model' | 'tools', work: () => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    this.scope = { scope, stopping };
    try {
      return await scope.run(work);
    } finally {
      this.scope = null;
    }
  }

  /** Whether a cancellation came from `interrupt` (as opposed to cancelling the workflow). */
  takeInterrupt(): boolean {
    const interrupted = this.interruptRequested;
    this.interruptRequested = false;
    return interrupted;
  }

  interruptDone(): void {
    this.interruptsHandled = this.interruptsRequested;
  }

  takeQueued(): string[] {
    return this.queued.splice(0, this.queued.length);
  }

  /** Waits (durably: hours or days) for a person's answer, or the timeout. */
  async awaitApproval(call: PlannedToolUse, timeoutMs: number): Promise<ApprovalAnswer> {
    this.pendingApprovals.push({ toolUseId: call.id, name: call.name, summary: call.plan.ok ? call.plan.summary : call.name, input: call.input });
    this.onChange();
    try {
      const answered = await condition(() => this.answers.has(call.id), timeoutMs);
      return answered ? this.answers.get(call.id)! : { decision: 'timeout' };
    } finally {
      const index = this.pendingApprovals.findIndex((pending) => pending.toolUseId === call.id);
      if (index >= 0) this.pendingApprovals.splice(index, 1);
      this.onChange();
    }
  }
}
