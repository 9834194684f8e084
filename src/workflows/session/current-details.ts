/**
 * The workflow's current details: the Markdown the Temporal UI shows above a session's history,
 * rebuilt from the `state` query's view at every status change (session-view.ts publishes it).
 */
import type { AgentState, AgentStatus, PendingApproval } from '../../shared/contract';
import type { BackgroundTaskView } from '../../shared/background';
import { formatUsd } from '../../shared/model-prices';
import { todoLines, todoProgress } from '../../shared/todos';

type StatusLine = (view: AgentState, approvals: readonly PendingApproval[]) => string;

/** What the session is doing, by status; a status not listed is waiting for the model. */
const STATUS_LINES: Partial<Record<AgentStatus, StatusLine>> = {
  finished: (view) => `finished: **${view.reason}**`,
  running_tools: (view) => `running tools: ${view.currentToolCalls.map((call) => call.summary).join(', ')}`,
  waiting_approval: (_, approvals) =>
    `**waiting for approval**: ${approvals.map((pending) => `${pending.summary} (\`${pending.toolUseId}\`)`).join(', ')}`,
  waiting_answer: (view) =>
    `**waiting for an answer** (update \`answerQuestion\`): ${(view.pendingQuestions ?? []).map((pending) => `\`${pending.toolUseId}\``).join(', ')}`,
  waiting_input: () => 'waiting for a message (signal `userMessage`, or `end`)',
  waiting_rate_limit: (view) => rateLimitLine(view),
  compacting: () => 'compacting the conversation',
  rewinding: () => 'rewinding',
};

function statusLine(view: AgentState, approvals: readonly PendingApproval[]): string {
  return STATUS_LINES[view.status]?.(view, approvals) ?? 'waiting for the model';
}

/** The workflow's current details in the Temporal UI (Markdown). */
export function currentDetails(view: AgentState, approvals: readonly PendingApproval[]): string {
  return [
    `**Turn ${view.turn}** · ${statusLine(view, approvals)}`,
    `- model: ${view.model}`,
    ...(view.permissionMode ? [`- permission mode: ${view.permissionMode}`] : []),
    ...personWaits(view, approvals),
    ...(view.host ? [`- host: ${view.host}`] : []),
    ...(view.sandbox === 'none' ? ["- sandbox: **none** (commands run with the worker's privileges)"] : []),
    `- last transition: ${view.lastTransition ?? '—'}`,
    `- context: ~${view.estimatedContextTokens} tokens${view.contextEdits.length ? ` (edits: ${view.contextEdits.join(', ')})` : ''}`,
    `- tokens: ${view.usage.inputTokens} in, ${view.usage.outputTokens} out, ${view.usage.cacheReadInputTokens} read from cache`,
    ...(view.usage.costUsd !== undefined ? [`- cost: ${formatUsd(view.usage.costUsd)} (sub-agents included)`] : []),
    ...(view.lastToolSummary ? [`- last tools: ${view.lastToolSummary}`] : []),
    ...backgroundLines(view.backgroundTasks),
    ...(view.todos?.length
      ? [`- todos (${todoProgress(view.todos)}):`, ...todoLines(view.todos).map((line) => `  - ${line}`)]
      : []),
    ...(view.snapshots.length
      ? [
          `- workspace: last snapshot after turn ${view.snapshots.at(-1)!.turn} (\`${view.snapshots.at(-1)!.ref.slice(0, 19)}…\`, ${view.snapshots.length} in all)`,
        ]
      : []),
  ].join('\n');
}

/** The background commands: running ones, then the last ones that ended. */
function backgroundLines(tasks: readonly BackgroundTaskView[] = []): string[] {
  if (tasks.length === 0) return [];
  const shown = [
    ...tasks.filter((task) => task.status === 'running'),
    ...tasks.filter((task) => task.status !== 'running').slice(-5),
  ];
  return [
    `- background commands (${tasks.filter((task) => task.status === 'running').length} running):`,
    ...shown.map((task) => `  - \`${task.id}\` ${task.status}: ${task.description}`),
  ];
}

/** The plans waiting for approval and the questions waiting for answers, in full enough to decide on. */
function personWaits(view: AgentState, approvals: readonly PendingApproval[]): string[] {
  const plans = approvals.flatMap((pending) =>
    pending.plan === undefined
      ? []
      : [`- plan (\`${pending.toolUseId}\`), approve with a mode to go on in:`, '', quoted(pending.plan)],
  );
  const questions = (view.pendingQuestions ?? []).flatMap((pending) =>
    pending.questions.map(
      (question) =>
        `- question (\`${pending.toolUseId}\`) ${question.header}: ${question.question} ${question.options.map((option) => `[${option.label}]`).join(' ')}${question.multiSelect ? ' (several may be chosen)' : ''}`,
    ),
  );
  return [...plans, ...questions];
}

function quoted(text: string): string {
  return `${text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n')}\n`;
}

/** Issue 26: the current details while a rate limit is waited out. */
function rateLimitLine(view: AgentState): string {
  const limit = view.rateLimit;
  return `**waiting out a rate limit** until ${limit?.until ?? '?'} (${limit?.refusals ?? 0} refused, ${Math.round((limit?.waitedMs ?? 0) / 1000)} s waited before)`;
}
