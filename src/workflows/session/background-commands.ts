/**
 * Background commands (Bash `run_in_background: true`, issue 26), tracked in workflow state.
 *
 * A command is the call's own tool activity (runTool, on the session's host, in its sandbox),
 * started in a cancellation scope of its own that the turn does not wait for: the call is
 * answered at once, the activity runs on across turns, heartbeating. Its scope's parent is the
 * workflow's root scope, so the workflow's cancellation stops it; an interrupt, TaskStop and the
 * session's end cancel it. Its activity has one attempt: a worker or host that dies under it
 * ends it by heartbeat timeout, and it is reported `lost` (with the last line it wrote), never
 * run again.
 *
 * When it ends, a `<task-notification>` waits for the next model request (beginTurn). TaskOutput
 * waits for its end with a durable `condition` (up to its timeout); TaskStop cancels it and waits
 * until its process group is killed.
 *
 * Continue-as-new waits while any runs (an activity cannot cross into the next run): the run goes
 * on until they end, then continues as new at the next boundary, with the finished ones carried.
 */
import { ActivityFailure, CancellationScope, condition, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import type { PlannedToolUse, RunToolOutput } from '../../shared/activity-io';
import {
  backgroundStartedText,
  backgroundTaskId,
  type BackgroundTaskView,
  outputTail,
  TASK_OUTPUT_DEFAULT_TIMEOUT_MS,
  taskNotification,
  taskOutputText,
} from '../../shared/background';
import { contentPreview, type ToolResult, toolErrorResult } from '../../shared/conversation';

/** What one run hands to the next: finished commands (TaskOutput still reads them) and notifications not yet sent. */
export interface CarriedBackground {
  background?: { tasks: BackgroundTaskView[]; notifications: string[] };
}

/** At most this many finished commands are kept (and carried): the oldest go first. */
const KEPT_FINISHED = 50;

interface Tracked {
  view: BackgroundTaskView;
  /** The full output of a finished command, for TaskOutput (this run only). */
  output?: string;
  scope?: CancellationScope;
  stopRequested?: boolean;
}

export class BackgroundCommands {
  private readonly tasks = new Map<string, Tracked>();
  private notifications: string[] = [];
  /** Made while the workflow's root scope is current (the session is built at the top of the workflow). */
  private readonly root = CancellationScope.current();

  constructor(
    private readonly changed: (tasks: BackgroundTaskView[]) => void,
    /** A transcript note: started, ended (what `watch` prints). */
    private readonly noted: (task: BackgroundTaskView) => void,
  ) {}

  /** Whether a command still runs (continue-as-new waits). */
  running(): boolean {
    return [...this.tasks.values()].some((task) => task.view.status === 'running');
  }

  list(): BackgroundTaskView[] {
    return [...this.tasks.values()].map((task) => ({ ...task.view }));
  }

  /** Starts the call's activity (`run`) without waiting for it; the call's answer says so at once. */
  start(call: PlannedToolUse, turn: number, run: () => Promise<RunToolOutput>): ToolResult {
    const id = backgroundTaskId(call.id, (taken) => this.tasks.has(taken));
    const input = (call.input ?? {}) as { command?: unknown; description?: unknown };
    const command = typeof input.command === 'string' ? input.command : '';
    const description =
      typeof input.description === 'string' && input.description ? input.description : firstLine(command);
    const tracked: Tracked = { view: { id, toolUseId: call.id, description, command, status: 'running', turn } };
    tracked.scope = new CancellationScope({ cancellable: true, parent: this.root });
    this.tasks.set(id, tracked);
    this.noted(tracked.view);
    this.publish();
    tracked.scope.run(run).then(
      (output) => this.ended(tracked, output.result),
      (error: unknown) => this.failed(tracked, error),
    );
    return { toolUseId: call.id, isError: false, content: { text: backgroundStartedText(id) }, toolName: call.name };
  }

  /** TaskOutput: the command's status and output, after waiting up to `timeout` for its end when `block`. */
  async output(call: PlannedToolUse): Promise<ToolResult> {
    const input = call.input as { task_id: string; block?: boolean; timeout?: number };
    const tracked = this.tasks.get(input.task_id);
    if (!tracked) return toolErrorResult(call, this.unknown(input.task_id));
    const finished = () => tracked.view.status !== 'running';
    const waitMs = input.timeout ?? TASK_OUTPUT_DEFAULT_TIMEOUT_MS;
    if (!finished() && input.block !== false && waitMs > 0) await condition(finished, waitMs);
    const retrieval = finished() ? 'success' : input.block === false ? 'not_ready' : 'timeout';
    // The model read its output here: the notification would only say it again.
    if (finished()) this.dropNotification(tracked.view.id);
    const view = { ...tracked.view, ...(tracked.output !== undefined ? { outputTail: tracked.output } : {}) };
    return {
      toolUseId: call.id,
      isError: false,
      content: { text: taskOutputText(view, retrieval) },
      toolName: call.name,
    };
  }

  /** TaskStop: the command's activity cancelled (its process group killed), waited for. */
  async stop(call: PlannedToolUse): Promise<ToolResult> {
    const input = call.input as { task_id?: string; shell_id?: string };
    const id = input.task_id ?? input.shell_id ?? '';
    const tracked = this.tasks.get(id);
    if (!tracked) return toolErrorResult(call, this.unknown(id));
    if (tracked.view.status !== 'running')
      return toolErrorResult(call, `Task ${id} is not running (status: ${tracked.view.status}).`);
    await this.stopOne(tracked);
    this.dropNotification(id);
    const text = `Successfully stopped task: ${id} (${tracked.view.description})`;
    return { toolUseId: call.id, isError: false, content: { text }, toolName: call.name };
  }

  /** An interrupt, or the session's end: every running command stopped. */
  async stopAll(): Promise<void> {
    const running = [...this.tasks.values()].filter((task) => task.view.status === 'running');
    await Promise.all(running.map((task) => this.stopOne(task)));
  }

  /** The notifications of commands that ended since the last model request. */
  takeNotifications(): string[] {
    return this.notifications.splice(0, this.notifications.length);
  }

  carry(): CarriedBackground {
    if (this.tasks.size === 0 && this.notifications.length === 0) return {};
    return { background: { tasks: this.list(), notifications: [...this.notifications] } };
  }

  restore(carried: CarriedBackground): void {
    // None runs across continue-as-new (the run waits for them); one carried as running could not be followed.
    for (const view of carried.background?.tasks ?? [])
      this.tasks.set(view.id, { view: view.status === 'running' ? { ...view, status: 'lost' } : view });
    this.notifications.push(...(carried.background?.notifications ?? []));
    if (this.tasks.size) this.publish();
  }

  private async stopOne(tracked: Tracked): Promise<void> {
    tracked.stopRequested = true;
    tracked.scope?.cancel();
    await condition(() => tracked.view.status !== 'running');
  }

  private ended(tracked: Tracked, result: ToolResult): void {
    const text = 'text' in result.content ? result.content.text : contentPreview(result.content, 4_000);
    const status = tracked.stopRequested ? 'killed' : result.isError ? 'failed' : 'completed';
    this.finish(tracked, status, text);
  }

  private failed(tracked: Tracked, error: unknown): void {
    if (tracked.stopRequested || isCancellation(error)) return this.finish(tracked, 'killed', '');
    // Its worker or host died (a heartbeat timeout): what it wrote last, as its heartbeats said.
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    const details =
      cause instanceof TimeoutFailure ? (cause.lastHeartbeatDetails as { lastLine?: unknown }) : undefined;
    const lastLine = typeof details?.lastLine === 'string' ? details.lastLine : '';
    this.finish(tracked, 'lost', lastLine);
  }

  private finish(tracked: Tracked, status: BackgroundTaskView['status'], output: string): void {
    tracked.scope = undefined;
    tracked.output = output;
    tracked.view = { ...tracked.view, status, ...(output ? { outputTail: outputTail(output) } : {}) };
    this.notifications.push(taskNotification(tracked.view));
    this.noted(tracked.view);
    this.forgetOldest();
    this.publish();
  }

  private dropNotification(id: string): void {
    this.notifications = this.notifications.filter((text) => !text.includes(`<task-id>${id}</task-id>`));
  }

  private forgetOldest(): void {
    const finished = [...this.tasks.values()].filter((task) => task.view.status !== 'running');
    for (const task of finished.slice(0, Math.max(0, finished.length - KEPT_FINISHED))) this.tasks.delete(task.view.id);
  }

  private unknown(id: string): string {
    const known = [...this.tasks.keys()];
    return `No background task found with ID: ${id}.${known.length ? ` Known tasks: ${known.join(', ')}.` : ''}`;
  }

  private publish(): void {
    this.changed(this.list());
  }
}

function firstLine(command: string): string {
  const line = command.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
