/**
 * The `--json` event stream of a session (src/shared/live-events.ts), put together from what a
 * watcher receives: transcript entries (the workflow's), live events (the worker's) and the
 * result. Pure: a watcher feeds it in arrival order and writes what comes out.
 */
import type { AgentResult, PendingApproval, PendingQuestion, TranscriptEntry } from '../shared/contract';
import type { LiveEvent, PublishedEvent } from '../shared/live-events';

export class SessionEvents {
  /** The highest turn a `turn_start` was written for. */
  private started = 0;
  /** The turn of each tool call seen, for progress that came without one. */
  private readonly toolTurns = new Map<string, number>();
  private readonly approvals = new Set<string>();
  /** Per turn, the text its latest attempt streamed so far, and the next piece's index. */
  private readonly streamed = new Map<number, { attempt: number; next: number; text: string }>();
  /** Turns whose model call's `usage` was written. */
  private readonly finished = new Set<number>();

  constructor(
    private readonly workflowId: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private stamp<T extends { type: string }>(event: T, turn: number): LiveEvent[] {
    const out: LiveEvent[] = [];
    const at = this.now().toISOString();
    if (turn > this.started) {
      this.started = turn;
      out.push({ type: 'turn_start', workflowId: this.workflowId, turn, at });
    }
    out.push({ ...event, workflowId: this.workflowId, turn, at } as unknown as LiveEvent);
    return out;
  }

  /** The turn the session is in, as far as this watcher knows. */
  get turn(): number {
    return this.started;
  }

  fromEntry(entry: TranscriptEntry): LiveEvent[] {
    switch (entry.type) {
      case 'assistant': {
        this.finished.add(entry.turn);
        // The reply ended before all its pieces arrived here: the rest as one last piece, before usage.
        const streamed = this.streamed.get(entry.turn);
        const rest =
          streamed && entry.text.startsWith(streamed.text) && entry.text.length > streamed.text.length
            ? this.stamp(
                {
                  type: 'text_delta',
                  attempt: streamed.attempt,
                  index: streamed.next,
                  kind: 'text',
                  text: entry.text.slice(streamed.text.length),
                },
                entry.turn,
              )
            : [];
        return [
          ...rest,
          ...this.stamp(
            { type: 'usage', stopReason: entry.stopReason, usage: entry.usage, text: entry.text },
            entry.turn,
          ),
        ];
      }
      case 'tool_call':
        this.toolTurns.set(entry.toolUseId, entry.turn);
        return this.stamp(
          { type: 'tool_start', toolUseId: entry.toolUseId, name: entry.name, summary: entry.summary },
          entry.turn,
        );
      case 'tool_result':
        return this.stamp(
          {
            type: 'tool_end',
            toolUseId: entry.toolUseId,
            name: entry.name,
            isError: entry.isError,
            preview: entry.preview,
          },
          entry.turn,
        );
      case 'user_message':
        return this.stamp({ type: 'user_message', text: entry.text }, entry.turn);
      case 'transition':
        return this.stamp(
          { type: 'transition', transition: entry.transition, ...(entry.detail ? { detail: entry.detail } : {}) },
          entry.turn,
        );
      default:
        return [];
    }
  }

  /** A live event as published, with the turn filled in when the worker could not know it. */
  fromLive(event: PublishedEvent): LiveEvent[] {
    // The turn's `usage` (with its whole text) is out: a delta or retry arriving after it is a late copy.
    if (event.type !== 'tool_progress' && this.finished.has(event.turn)) return [];
    const turn =
      event.turn ||
      (event.type === 'tool_progress' ? this.toolTurns.get(event.toolUseId) : undefined) ||
      Math.max(1, this.started);
    if (event.type === 'text_delta') {
      // Indexes count text and thinking pieces alike; only text is part of the reply's text.
      const known = this.streamed.get(turn);
      const text = known?.attempt === event.attempt ? known.text : '';
      this.streamed.set(turn, {
        attempt: event.attempt,
        next: event.index + 1,
        text: event.kind === 'text' ? text + event.text : text,
      });
    }
    const { workflowId: _workflowId, turn: _turn, at: _at, ...rest } = event;
    return this.stamp(rest, turn);
  }

  /** Approvals the session waits for, each written once. */
  fromApprovals(pending: readonly PendingApproval[], turn: number): LiveEvent[] {
    return pending
      .filter((approval) => !this.approvals.has(approval.toolUseId))
      .flatMap((approval) => {
        this.approvals.add(approval.toolUseId);
        return this.stamp(
          {
            type: 'approval_needed',
            toolUseId: approval.toolUseId,
            name: approval.name,
            summary: approval.summary,
            ...(approval.plan !== undefined ? { plan: approval.plan } : {}),
          },
          turn || this.started,
        );
      });
  }

  /** Questions the session waits for answers to (AskUserQuestion), each written once. */
  fromQuestions(pending: readonly PendingQuestion[], turn: number): LiveEvent[] {
    return pending
      .filter((asked) => !this.approvals.has(asked.toolUseId))
      .flatMap((asked) => {
        this.approvals.add(asked.toolUseId);
        return this.stamp(
          { type: 'question_needed', toolUseId: asked.toolUseId, questions: asked.questions },
          turn || this.started,
        );
      });
  }

  fromResult(result: AgentResult): LiveEvent[] {
    return this.stamp(
      {
        type: 'result',
        reason: result.reason,
        usage: result.usage,
        finalText: result.finalText,
        ...(result.error ? { error: result.error } : {}),
      },
      Math.max(result.turnCount, this.started),
    );
  }

  fromFailure(message: string): LiveEvent[] {
    return this.stamp({ type: 'result', reason: 'failed', error: message }, this.started);
  }
}
