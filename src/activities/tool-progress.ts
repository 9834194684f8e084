/**
 * A running tool call's progress for watchers: once a second after the first, its elapsed time
 * and (for a command) the last line it wrote, read from the call's progress (the same its
 * heartbeats carry). A call that ends within a second sends nothing.
 */
import type { CallProgress } from './heartbeat';
import type { LivePublisher } from '../live/live-publisher';

export const PROGRESS_INTERVAL_MS = 1_000;

export interface ToolProgress {
  stop(): Promise<void>;
}

export function trackToolProgress(publisher: LivePublisher, toolUseId: string, call: CallProgress): ToolProgress {
  const timer = setInterval(() => {
    publisher.progress(toolUseId, call.tool, call.elapsedMs, call.lastLine);
    void publisher.flush();
  }, PROGRESS_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await publisher.flush();
    },
  };
}
