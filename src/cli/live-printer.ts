/**
 * How `run` and `watch` show a session to a person: the model's text as it streams, one line per
 * retry, a spinner (on a terminal) while tools run, then each transcript line as before.
 */
import type { AgentResult, PendingApproval, PendingQuestion, RateLimitView, TranscriptEntry } from '../shared/contract';
import type { PublishedEvent } from '../shared/live-events';
import { formatEntry, formatResult } from './print-transcript';
import { formatElapsed, paint, SPINNER_FRAMES, type Terminal } from './terminal';

/** What a retry is about, in a few words. */
const RETRY_REASONS: Record<string, string> = {
  ModelOverloaded: 'model overloaded',
  ModelRateLimited: 'rate limited',
  ModelServerError: 'model API error',
  ModelConnectionError: 'model API unreachable',
  ModelMalformedResponse: 'malformed reply',
};

export function retryLine(event: Extract<PublishedEvent, { type: 'retry' }>): string {
  const reason = RETRY_REASONS[event.reason] ?? event.reason;
  const delay = event.delayMs < 1000 ? `${event.delayMs} ms` : formatElapsed(event.delayMs);
  return `↻ ${reason}: retry ${event.nextAttempt} in ${delay}${event.replaced ? ' (its partial reply is replaced)' : ''}`;
}

interface RunningTool {
  name: string;
  summary: string;
  started: number;
  lastLine?: string;
}

export class LivePrinter {
  /** Turn whose text is streaming, and the attempt it comes from. */
  private streaming: { turn: number; attempt: number; atLineStart: boolean } | undefined;
  /** Turns whose text was shown as it streamed, and that text (its latest attempt's). */
  private readonly streamed = new Map<number, string>();
  private readonly tools = new Map<string, RunningTool>();
  private spinner: NodeJS.Timeout | undefined;
  private frame = 0;
  private spinnerShown = false;
  private readonly approvals = new Set<string>();
  /** Turns whose reply (transcript entry) has been shown: later deltas of them are late copies. */
  private readonly shown = new Set<number>();
  /** The last reply shown: the result repeats it only when it is something else. */
  private lastText: string | undefined;

  constructor(private readonly terminal: Terminal) {}

  private line(text: string): void {
    this.clearSpinner();
    this.endStream();
    this.terminal.write(`${text}\n`);
  }

  private endStream(): void {
    if (this.streaming && !this.streaming.atLineStart) this.terminal.write('\n');
    this.streaming = undefined;
  }

  live(event: PublishedEvent): void {
    // The turn's reply is already shown whole (its transcript entry overtook the stream): nothing to add.
    if (event.type !== 'tool_progress' && this.shown.has(event.turn)) return;
    if (event.type === 'text_delta') {
      if (event.kind === 'thinking') return; // thinking is for --json readers
      if (!this.streaming || this.streaming.turn !== event.turn || this.streaming.attempt !== event.attempt) {
        this.line(
          paint(
            this.terminal,
            'bold',
            `── turn ${event.turn}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}`,
          ),
        );
        this.streaming = { turn: event.turn, attempt: event.attempt, atLineStart: true };
        this.streamed.set(event.turn, '');
      }
      this.writeStreamed(event.turn, event.text);
    } else if (event.type === 'retry') {
      this.line(paint(this.terminal, 'yellow', `  ${retryLine(event)}`));
      if (event.replaced) this.streamed.delete(event.turn);
    } else {
      const tool = this.tools.get(event.toolUseId);
      if (tool) tool.lastLine = event.lastLine ?? tool.lastLine;
      else
        this.tools.set(event.toolUseId, {
          name: event.name,
          summary: event.name,
          started: Date.now() - event.elapsedMs,
          ...(event.lastLine ? { lastLine: event.lastLine } : {}),
        });
      this.startSpinner();
    }
  }

  entry(entry: TranscriptEntry): void {
    if (entry.type === 'assistant') {
      this.lastText = entry.text;
      this.shown.add(entry.turn);
    }
    if (entry.type === 'assistant' && this.streamed.has(entry.turn)) {
      // The reply ended before all its pieces arrived here: the rest, from the entry.
      const shown = this.streamed.get(entry.turn)!;
      if (this.streaming?.turn === entry.turn && entry.text.startsWith(shown) && entry.text.length > shown.length)
        this.writeStreamed(entry.turn, entry.text.slice(shown.length));
      this.line(
        paint(
          this.terminal,
          'dim',
          `  · ${entry.stopReason} · ${entry.usage.inputTokens} in / ${entry.usage.outputTokens} out`,
        ),
      );
      return;
    }
    if (entry.type === 'tool_call')
      this.tools.set(entry.toolUseId, { name: entry.name, summary: entry.summary, started: Date.now() });
    if (entry.type === 'tool_result') this.tools.delete(entry.toolUseId);
    const text = formatEntry(entry);
    if (text)
      this.line(
        entry.type === 'tool_result' && entry.isError
          ? paint(this.terminal, 'red', text)
          : entry.type === 'tool_call'
            ? paint(this.terminal, 'cyan', text)
            : text,
      );
    if (entry.type === 'tool_call') this.startSpinner();
    if (this.tools.size === 0) this.stopSpinner();
  }

  /** Streamed text, indented like the transcript's: two spaces at the start of every line. */
  private writeStreamed(turn: number, piece: string): void {
    this.clearSpinner();
    const stream = this.streaming!;
    const text = piece.replace(/\n/g, '\n  ');
    this.terminal.write((stream.atLineStart ? '  ' : '') + (text.endsWith('\n  ') ? text.slice(0, -2) : text));
    stream.atLineStart = piece.endsWith('\n');
    this.streamed.set(turn, (this.streamed.get(turn) ?? '') + piece);
  }

  pendingApprovals(pending: readonly PendingApproval[], workflowId: string): void {
    for (const approval of pending) {
      if (this.approvals.has(approval.toolUseId)) continue;
      this.approvals.add(approval.toolUseId);
      const agent = approval.agent ? ` (sub-agent "${approval.agent.description}")` : '';
      if (approval.plan !== undefined) this.line(`  ▤ plan:\n${approval.plan.replace(/^/gm, '    ')}`);
      const mode = approval.plan !== undefined ? ' [--mode default|acceptEdits|bypassPermissions|dontAsk]' : '';
      this.line(
        paint(
          this.terminal,
          'yellow',
          `  ? waiting for approval: ${approval.summary}${agent}  →  durable-agent approve ${workflowId} ${approval.toolUseId} [--deny]${mode}`,
        ),
      );
    }
  }

  /** Questions the session waits for answers to (AskUserQuestion), each printed once. */
  pendingQuestions(pending: readonly PendingQuestion[], workflowId: string): void {
    for (const asked of pending) {
      if (this.approvals.has(asked.toolUseId)) continue;
      this.approvals.add(asked.toolUseId);
      for (const question of asked.questions) {
        this.line(paint(this.terminal, 'yellow', `  ? ${question.header}: ${question.question}`));
        for (const option of question.options) this.line(`      - ${option.label}: ${option.description}`);
      }
      const example = asked.questions.map((question) => `--answer '${question.header}=…'`).join(' ');
      this.line(
        paint(
          this.terminal,
          'yellow',
          `  ? waiting for an answer  →  durable-agent answer ${workflowId} ${asked.toolUseId} ${example}`,
        ),
      );
    }
  }

  /** Issue 26: the session waits out a rate limit (each wait printed once). */
  rateLimitWait(limit: RateLimitView): void {
    if (this.approvals.has(`rate-limit:${limit.until}`)) return;
    this.approvals.add(`rate-limit:${limit.until}`);
    this.line(
      paint(
        this.terminal,
        'yellow',
        `  ⏳ rate limited: waiting until ${limit.until} (${limit.refusals} refused, ${Math.round(limit.waitedMs / 1000)} s waited before)`,
      ),
    );
  }

  result(result: AgentResult): void {
    this.stopSpinner();
    if (result.finalText && result.finalText !== this.lastText) this.line(`\n${result.finalText}`);
    this.line(`\n${formatResult(result)}`);
  }

  note(text: string): void {
    this.line(text);
  }

  close(): void {
    this.stopSpinner();
    this.endStream();
  }

  /** On a terminal, one line redrawn in place: the running calls, how long, the last output. */
  private startSpinner(): void {
    if (!this.terminal.tty || this.spinner) return;
    this.spinner = setInterval(() => this.drawSpinner(), 100);
    this.spinner.unref();
  }

  private drawSpinner(): void {
    const running = [...this.tools.values()];
    if (running.length === 0 || this.streaming) return;
    const first = running[0]!;
    const more = running.length > 1 ? ` (+${running.length - 1} more)` : '';
    const tail = first.lastLine ? ` · ${first.lastLine}` : '';
    const frame = SPINNER_FRAMES[this.frame++ % SPINNER_FRAMES.length];
    const text = `  ${frame} ${first.summary} · ${formatElapsed(Date.now() - first.started)}${more}${tail}`;
    const width = (process.stdout.columns || 100) - 1;
    this.terminal.write(`\r\x1b[K${paint(this.terminal, 'dim', text.slice(0, width))}`);
    this.spinnerShown = true;
  }

  private clearSpinner(): void {
    if (!this.spinnerShown) return;
    this.terminal.write('\r\x1b[K');
    this.spinnerShown = false;
  }

  private stopSpinner(): void {
    clearInterval(this.spinner);
    this.spinner = undefined;
    this.clearSpinner();
  }
}
