/**
 * What an activity sends watchers while it runs: the model's text as it streams, a retry about to
 * happen, a tool's progress. Events are batched (one publish per FLUSH_MS at most), so a fast
 * stream costs a few messages a second however small its deltas are.
 */
import { Context, type Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { msOptionalToNumber } from '@temporalio/common/lib/time';
import type { PublishedEvent } from '../shared/live-events';
import type { LiveChannel } from './live-channel';

/** How long deltas wait to go out together: well inside the 300 ms watchers are promised. */
export const FLUSH_MS = 100;
/** A longer delta is sent as several (a PostgreSQL notification holds 8,000 bytes). */
const DELTA_MAX_CHARS = 1_000;

type Omitted = 'workflowId' | 'turn' | 'at';
type Unplaced<T> = T extends unknown ? Omit<T, Omitted> : never;

export class LivePublisher {
  private queue: PublishedEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  /** Pieces of text this attempt has published: the next one's index. */
  private deltas = 0;

  constructor(
    private readonly channel: LiveChannel | undefined,
    private readonly workflowId: string,
    private readonly turn: number,
    readonly attempt: number,
  ) {}

  /** For the activity running now (its workflow, its attempt). */
  static forActivity(channel: LiveChannel | undefined, turn = 0): LivePublisher {
    const info = Context.current().info;
    const workflowId = info.workflowExecution?.workflowId;
    // An activity outside a workflow has no session to be watched.
    return new LivePublisher(workflowId ? channel : undefined, workflowId ?? '', turn, info.attempt);
  }

  get streamed(): boolean {
    return this.deltas > 0;
  }

  delta(kind: 'text' | 'thinking', text: string): void {
    for (let start = 0; start < text.length; start += DELTA_MAX_CHARS) {
      this.add({
        type: 'text_delta',
        attempt: this.attempt,
        index: this.deltas++,
        kind,
        text: text.slice(start, start + DELTA_MAX_CHARS),
      });
    }
  }

  progress(toolUseId: string, name: string, elapsedMs: number, lastLine?: string): void {
    this.add({ type: 'tool_progress', toolUseId, name, elapsedMs, ...(lastLine ? { lastLine } : {}) });
  }

  /** The attempt failed with `failure`: when Temporal will try again, watchers hear when, and why. */
  retrying(failure: unknown, info: Info = Context.current().info): void {
    const delayMs = nextAttemptDelayMs(failure, info);
    if (delayMs === undefined || !(failure instanceof ApplicationFailure)) return;
    this.add({
      type: 'retry',
      attempt: info.attempt,
      nextAttempt: info.attempt + 1,
      delayMs,
      reason: failure.type ?? 'Error',
      message: failure.message,
      replaced: this.streamed,
    });
  }

  private add(event: Unplaced<PublishedEvent>): void {
    if (!this.channel) return;
    this.queue.push({
      ...event,
      workflowId: this.workflowId,
      turn: this.turn,
      at: new Date().toISOString(),
    } as PublishedEvent);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Sends what is queued; batches go out in order, one at a time. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length && this.channel) {
      const channel = this.channel;
      this.sending = this.sending.then(() => channel.publish(this.workflowId, batch)).catch(() => undefined);
    }
    return this.sending;
  }
}

/**
 * When Temporal will start the next attempt after this failure, or undefined when it will not
 * retry: the failure's own delay (a retry-after), else the activity's retry policy's backoff.
 */
export function nextAttemptDelayMs(failure: unknown, info: Pick<Info, 'attempt' | 'retryPolicy'>): number | undefined {
  if (failure instanceof ApplicationFailure && failure.nonRetryable) return undefined;
  const policy = info.retryPolicy;
  if (failure instanceof ApplicationFailure && failure.type && policy?.nonRetryableErrorTypes?.includes(failure.type))
    return undefined;
  if (policy?.maximumAttempts && info.attempt >= policy.maximumAttempts) return undefined;
  const explicit =
    failure instanceof ApplicationFailure ? msOptionalToNumber(failure.nextRetryDelay ?? undefined) : undefined;
  if (explicit !== undefined) return explicit;
  const initial = msOptionalToNumber(policy?.initialInterval) ?? 1_000;
  const maximum = msOptionalToNumber(policy?.maximumInterval) ?? initial * 100;
  return Math.min(initial * (policy?.backoffCoefficient ?? 2) ** (info.attempt - 1), maximum);
}
