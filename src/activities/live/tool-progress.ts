/**
 * A running tool call's progress for watchers: once a second after the first, its elapsed time
 * and (for a command) the last line it wrote. A call that ends within a second sends nothing.
 */
import type { LivePublisher } from './live-publisher';

export const PROGRESS_INTERVAL_MS = 1_000;
const LAST_LINE_MAX_CHARS = 200;

export interface ToolProgress {
  /** Feed a command's output here. */
  onOutput(chunk: string): void;
  stop(): Promise<void>;
}

export function trackToolProgress(publisher: LivePublisher, toolUseId: string, name: string): ToolProgress {
  const started = Date.now();
  let tail = '';
  const timer = setInterval(() => {
    publisher.progress(toolUseId, name, Date.now() - started, lastLine(tail));
    void publisher.flush();
  }, PROGRESS_INTERVAL_MS);
  timer.unref();
  return {
    onOutput(chunk) {
      // Enough of the end to hold the last complete line.
      tail = (tail + chunk).slice(-4 * LAST_LINE_MAX_CHARS);
    },
    async stop() {
      clearInterval(timer);
      await publisher.flush();
    },
  };
}

/** The last line with something on it, shortened: what a spinner shows beside the elapsed time. */
export function lastLine(output: string): string | undefined {
  const line = output
    .split(/\r?\n|\r/)
    .map((candidate) => candidate.trim())
    .filter(Boolean)
    .at(-1);
  if (!line) return undefined;
  // Terminal escape sequences (colours, cursor moves) mean nothing to a watcher.
  const plain = line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  return plain.length > LAST_LINE_MAX_CHARS ? `${plain.slice(0, LAST_LINE_MAX_CHARS - 1)}…` : plain;
}
