import { type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import type { AgentResult } from '../shared/contract';
import { transcriptQuery } from '../workflows/definitions';
import { answeredInTime, QUERY_DEADLINE_MS } from './cli-client';
import { formatEntry, formatResult } from './print-transcript';

/**
 * Prints a session turn by turn (model text, tool calls, results, transitions) until it ends,
 * then its result. Ctrl-C stops following only: the session goes on durably.
 * Returns the exit code: 0 when the session completed.
 */
export async function followSession(handle: WorkflowHandle, print: (line: string) => void = console.log): Promise<number> {
  const interrupted = new Promise<'interrupted'>((resolve) => process.once('SIGINT', () => resolve('interrupted')));
  let nextIndex = 0;
  let finished = false;
  let unanswered = false;
  const printFrom = async (limit?: number) => {
    const page = await answeredInTime(handle.client, () => handle.query(transcriptQuery, { fromIndex: nextIndex, ...(limit ? { limit } : {}) }));
    unanswered = page === undefined;
    if (!page) return 0;
    for (const entry of page.entries) {
      const line = formatEntry(entry);
      if (line) print(line);
    }
    nextIndex = page.nextIndex;
    return page.entries.length;
  };
  const poller = (async () => {
    while (!finished) {
      // The workflow may not have run its first task yet, or may have just closed: try again.
      const printed = await printFrom().catch(() => 0);
      if (printed === 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  try {
    const outcome = await Promise.race([handle.result() as Promise<AgentResult>, interrupted]);
    finished = true;
    await poller;
    if (outcome === 'interrupted') {
      print('\nStopped following. The session goes on durably; it continues whenever a worker runs (npm run worker).');
      return 130;
    }
    await printFrom(10_000).catch(() => 0); // what the poller had not reached before the result
    if (unanswered) print(`\n(no worker answered within ${QUERY_DEADLINE_MS / 1000} s, and the transcript needs one to replay the session: showing its result only)`);
    if (outcome.finalText) print(`\n${outcome.finalText}`);
    print(`\n${formatResult(outcome)}`);
    return outcome.reason === 'completed' ? 0 : 1;
  } catch (error) {
    finished = true;
    await poller;
    const cause = error instanceof WorkflowFailedError && error.cause ? error.cause : error;
    console.error(`Workflow ${handle.workflowId} failed: ${(cause as Error).message}`);
    return 1;
  }
}
