/**
 * What a command that steers a session (send, end, approve, interrupt, rewind) says when the
 * session has finished: how it finished and what to do instead, not Temporal's "workflow
 * execution already completed".
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';

/** How each closed workflow status reads in a sentence. */
const HOW_IT_ENDED: Record<string, string> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  TERMINATED: 'was terminated',
  CANCELLED: 'was cancelled',
  TIMED_OUT: 'timed out',
};

/** The sentence for a session that no longer runs, or undefined while it runs. */
export function finishedMessage(
  workflowId: string,
  description: Pick<WorkflowExecutionDescription, 'status' | 'closeTime'>,
): string | undefined {
  const status = description.status.name;
  if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') return undefined;
  const when = description.closeTime ? ` at ${description.closeTime.toISOString()}` : '';
  return (
    `${workflowId} has finished: it ${HOW_IT_ENDED[status] ?? status.toLowerCase()}${when}, ` +
    'so it takes no more messages or commands. Go on from one of its turns with  ' +
    `durable-agent fork ${workflowId} --turn N --workdir <new dir> "<instruction>", ` +
    'or start a new session with  durable-agent run'
  );
}

/**
 * Runs `command` against the session; when it fails because the session has finished (or never
 * existed), the error says so. The session is looked at only after a failure: no extra call when it runs.
 */
export async function whileRunning<T>(client: Client, workflowId: string, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    throw (await notRunning(client, workflowId).catch(() => undefined)) ?? error;
  }
}

/**
 * Fails as whileRunning does when the session does not run: for commands that query it first
 * (a query of a closed session needs a worker).
 */
export async function assertRunning(client: Client, workflowId: string): Promise<void> {
  const problem = await notRunning(client, workflowId);
  if (problem) throw problem;
}

async function notRunning(client: Client, workflowId: string): Promise<Error | undefined> {
  const description = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((error: Error) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    });
  if (!description) return new Error(`there is no session ${workflowId} (durable-agent list shows the sessions)`);
  const finished = finishedMessage(workflowId, description);
  return finished ? new Error(finished) : undefined;
}
