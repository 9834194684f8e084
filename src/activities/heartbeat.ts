import { Context } from '@temporalio/activity';
import { ACTIVITY_HEARTBEAT_INTERVAL_MS } from '../shared/limits';
import { lastLine, shownLine } from './shown-text';

/**
 * Heartbeats on a timer while `work` runs. Every activity runs under a short heartbeat timeout,
 * so when a worker is killed Temporal notices within seconds and retries the activity elsewhere,
 * instead of waiting for the start-to-close timeout. Heartbeats also deliver cancellation.
 * With `progress`, each heartbeat carries its details: what `temporal workflow describe` and the
 * UI's pending activities show of the call. `intervalMs`: how often (long, idle activities beat less).
 *
 * The first heartbeat comes one interval in, not at once: a call done sooner (a Read, a model
 * call to a fast endpoint) sends none, where each first heartbeat was a write of the server's.
 * A cancellation reaches the call no later for it: it arrives in a heartbeat's answer either way.
 */
export async function whileHeartbeating<T>(
  work: () => Promise<T>,
  progress?: CallProgress,
  intervalMs = ACTIVITY_HEARTBEAT_INTERVAL_MS,
): Promise<T> {
  const context = Context.current();
  const beat = progress ? () => context.heartbeat(progress.details()) : () => context.heartbeat();
  const timer = setInterval(beat, intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * The heartbeat details of a tool, hook or MCP call: plain JSON for people (nothing reads them
 * back: a retried attempt starts afresh). Like every payload, they are encrypted when
 * AGENT_ENCRYPTION_KEY is set, and the codec server decodes them for the UI.
 */
export interface CallDetails {
  /** What runs: the tool's name (`Bash`, `mcp__tracker__create_ticket`), `PreToolUse hook`, `MCP servers`. */
  tool: string;
  /** One line saying what the call does: the command, the path, the hook's command, the arguments. */
  summary: string;
  /** Since this attempt started. */
  elapsedMs: number;
  /** The last line with something on it that the call wrote so far; absent before the first. */
  lastLine?: string;
}

export const CALL_SUMMARY_MAX_CHARS = 120;
export const CALL_LAST_LINE_MAX_CHARS = 200;
/** Enough of the output's end to hold its last complete line. */
const TAIL_CHARS = 4 * CALL_LAST_LINE_MAX_CHARS;

/** A running call as heartbeats and watchers see it: what it is, since when, and its output's end. */
export class CallProgress {
  readonly summary: string;
  private readonly started = Date.now();
  private tail = '';

  constructor(
    readonly tool: string,
    summary: string,
  ) {
    this.summary = shownLine(summary, CALL_SUMMARY_MAX_CHARS);
  }

  /** Feed the call's output here, as it comes. */
  readonly onOutput = (chunk: string): void => {
    this.tail = (this.tail + chunk).slice(-TAIL_CHARS);
  };

  get elapsedMs(): number {
    return Date.now() - this.started;
  }

  get lastLine(): string | undefined {
    return lastLine(this.tail, CALL_LAST_LINE_MAX_CHARS);
  }

  details(): CallDetails {
    const line = this.lastLine;
    return { tool: this.tool, summary: this.summary, elapsedMs: this.elapsedMs, ...(line ? { lastLine: line } : {}) };
  }
}
