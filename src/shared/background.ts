/**
 * Background commands (Bash `run_in_background: true`) as the workflow tracks them and as the
 * model is told of them, in Claude Code's words: the answer at start, TaskOutput's result and the
 * `<task-notification>` a finished command sends with the next model request. Pure text, no I/O.
 */

/** `lost`: its worker or host died while it ran; it was not run again. */
export type BackgroundStatus = 'running' | 'completed' | 'failed' | 'killed' | 'lost';

/** One background command, as `state` lists it (`backgroundTasks`). */
export interface BackgroundTaskView {
  /** The id the model names in TaskOutput and TaskStop. */
  id: string;
  /** The Bash call that started it. */
  toolUseId: string;
  /** Its `description`, or its command's first line. */
  description: string;
  command: string;
  status: BackgroundStatus;
  /** The turn it started in. */
  turn: number;
  /** The end of its output (up to BACKGROUND_TAIL_CHARS), once it ended. */
  outputTail?: string;
}

/** How much of a finished command's output its notification and `state` carry. */
export const BACKGROUND_TAIL_CHARS = 2_000;

/** A background command's timeout when the call gives none (Claude Code's: 10 minutes). */
export const BACKGROUND_DEFAULT_TIMEOUT_MS = 600_000;

/** TaskOutput's wait when the call gives none, and its longest (Claude Code's). */
export const TASK_OUTPUT_DEFAULT_TIMEOUT_MS = 30_000;
export const TASK_OUTPUT_MAX_TIMEOUT_MS = 600_000;

/** The id of the background command a Bash call starts: from its tool_use id, so a replay makes the same. */
export function backgroundTaskId(toolUseId: string, taken: (id: string) => boolean): string {
  const base = `b${toolUseId.replace(/[^A-Za-z0-9]/g, '').slice(-8)}`;
  let id = base;
  for (let n = 2; taken(id); n++) id = `${base}${n}`;
  return id;
}

/** Bash's answer when it started a command in the background (Claude Code's first sentence). */
export function backgroundStartedText(id: string): string {
  return (
    `Command running in background with ID: ${id}. Its output is kept in the session's store. ` +
    'If it exits while you are still working you will be notified, but it is stopped when you give your final response, ' +
    'so if you need its result, wait for it (TaskOutput with this ID) before your final response. To stop it, use TaskStop.'
  );
}

/** The `<summary>` of a notification and of TaskOutput: Claude Code's sentences, and ours for `lost`. */
export function backgroundSummary(task: BackgroundTaskView, exitCode?: number): string {
  const what = `Background command "${task.description}"`;
  switch (task.status) {
    case 'completed':
      return `${what} completed${exitCode !== undefined ? ` (exit code ${exitCode})` : ''}`;
    case 'failed':
      return `${what} failed${exitCode !== undefined ? ` with exit code ${exitCode}` : ''}`;
    case 'killed':
      return `${what} was stopped`;
    case 'lost':
      return `${what} was lost: the worker running it stopped before it finished. It was not run again; its effects so far may be present`;
    default:
      return `${what} is still running`;
  }
}

/** Claude Code's `<task-notification>` for a finished command, with the end of its output. */
export function taskNotification(task: BackgroundTaskView): string {
  const status = task.status === 'lost' ? 'failed' : task.status;
  const tail = task.outputTail ? `\n<output-tail>${escapeTags(task.outputTail)}</output-tail>` : '';
  return [
    '<task-notification>',
    `<task-id>${task.id}</task-id>`,
    `<tool-use-id>${task.toolUseId}</tool-use-id>`,
    `<status>${status}</status>`,
    `<summary>${escapeTags(backgroundSummary(task))}</summary>${tail}`,
    '</task-notification>',
  ].join('\n');
}

/** TaskOutput's result, in Claude Code's shape: `retrieval_status` (success, timeout, not_ready), status, output. */
export function taskOutputText(task: BackgroundTaskView, retrieval: 'success' | 'timeout' | 'not_ready'): string {
  return [
    `<retrieval_status>${retrieval}</retrieval_status>`,
    `<task_id>${task.id}</task_id>`,
    '<task_type>local_bash</task_type>',
    `<status>${task.status}</status>`,
    ...(task.status === 'running'
      ? []
      : [`<summary>${escapeTags(backgroundSummary(task))}</summary>`, `<output>\n${task.outputTail ?? ''}\n</output>`]),
  ].join('\n');
}

/** The end of a command's output. */
export function outputTail(text: string, chars = BACKGROUND_TAIL_CHARS): string {
  return text.length <= chars ? text : `…${text.slice(text.length - chars)}`;
}

/** Output cannot close or open the notification's own tags. */
function escapeTags(text: string): string {
  return text.replace(/<(\/?)(task-notification|output-tail|summary|status|task-id)/gi, '&lt;$1$2');
}
