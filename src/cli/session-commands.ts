/**
 * `durable-agent watch | status | send | end | interrupt | approve | list`: the steering actions,
 * through the same signals, updates and queries the Temporal CLI uses (see README).
 */
import { parseArgs } from 'node:util';
import { type AgentResult, type AgentState, type InterruptRequest, type InterruptResult, WORKFLOW_TYPE } from '../shared/contract';
import { AGENT_FORKED_FROM, AGENT_HOST, AGENT_LAST_TRANSITION, AGENT_STATUS, AGENT_TURN } from '../shared/search-attributes';
import { temporalSettings } from '../worker-config';
import { formatResult } from './print-transcript';
import { approveToolUpdate, endSignal, interruptUpdate, stateQuery, userMessageSignal } from '../workflows/definitions';
import { answeredInTime, QUERY_DEADLINE_MS, UsageError, withClient } from './cli-client';
import { followSession } from './follow';
import { moveCommand } from './host-commands';
import { workspaceCommand } from './workspace-commands';

export function positional(args: string[], count: number, usage: string): string[] {
  if (args.length < count) throw new UsageError(`usage: durable-agent ${usage}`);
  return args;
}

export function formatState(workflowId: string, state: AgentState): string {
  const lines = [
    `${workflowId}: ${state.status}${state.reason ? ` (${state.reason})` : ''}`,
    `  turn ${state.turn} · model ${state.model} · last transition ${state.lastTransition ?? '—'}${state.host ? ` · host ${state.host}` : ''}`,
    `  tokens: ${state.usage.inputTokens} in, ${state.usage.outputTokens} out · context ~${state.estimatedContextTokens}`,
  ];
  if (state.status === 'waiting_host') {
    lines.push(`  host ${state.host} is lost: the session waits for it to come back, or moves with  durable-agent move ${workflowId} --host <host id> [--workdir <dir>]`);
  }
  for (const call of state.currentToolCalls) lines.push(`  running: ${call.summary}`);
  for (const pending of state.pendingApprovals) {
    lines.push(`  waiting for approval: ${pending.summary}  →  durable-agent approve ${workflowId} ${pending.toolUseId} [--deny] [--feedback "…"]`);
  }
  if (state.queuedMessages) lines.push(`  queued messages: ${state.queuedMessages}`);
  if (state.lastToolSummary) lines.push(`  last tools: ${state.lastToolSummary}`);
  const last = state.snapshots?.at(-1);
  if (last) lines.push(`  workspace: snapshots after turns ${state.snapshots.map((snapshot) => snapshot.turn).join(', ')} (durable-agent diff, rewind, fork)`);
  return lines.join('\n');
}

export async function sessionCommand(command: string, args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  switch (command) {
    case 'watch': {
      const [workflowId] = positional(args, 1, 'watch <workflow-id>');
      return withClient(environment, (client) => followSession(client.workflow.getHandle(workflowId!)));
    }
    case 'status': {
      const [workflowId] = positional(args, 1, 'status <workflow-id>');
      return withClient(environment, async (client) => {
        const handle = client.workflow.getHandle(workflowId!);
        const description = await handle.describe();
        const state = await answeredInTime(client, () => handle.query(stateQuery));
        if (state) {
          console.log(formatState(workflowId!, state));
        } else {
          // A query needs a worker to replay the session: without one, what Temporal recorded.
          const attributes = description.typedSearchAttributes;
          const turn = attributes.get(AGENT_TURN);
          console.log(`${workflowId}: ${attributes.get(AGENT_STATUS) ?? description.status.name.toLowerCase()}`);
          console.log(`  turn ${turn ?? '—'} · last transition ${attributes.get(AGENT_LAST_TRANSITION) ?? '—'}${attributes.get(AGENT_HOST) ? ` · host ${attributes.get(AGENT_HOST)}` : ''}`);
          console.log(
            `  (no worker answered within ${QUERY_DEADLINE_MS / 1000} s: no worker is polling "${description.taskQueue}" on ${temporalSettings(environment).address}; ` +
              `showing the state recorded at turn ${turn ?? '—'})`,
          );
          if (description.status.name !== 'RUNNING') {
            // The result is in history: no worker needed.
            const result = await (handle.result() as Promise<AgentResult>).catch((error: Error & { cause?: Error }) => error);
            console.log(result instanceof Error ? `  no result: ${result.cause?.message ?? result.message}` : formatResult(result));
          }
        }
        console.log(`  workflow: ${description.status.name}, started ${description.startTime.toISOString()}`);
        const forkedFrom = (description.memo as { forkedFrom?: { workflowId: string; turn: number } } | undefined)?.forkedFrom;
        if (forkedFrom) console.log(`  forked from ${forkedFrom.workflowId} at turn ${forkedFrom.turn}`);
        const forks: string[] = [];
        for await (const fork of client.workflow.list({ query: `${AGENT_FORKED_FROM.name}='${workflowId}'` })) forks.push(fork.workflowId);
        if (forks.length) console.log(`  forks: ${forks.join(', ')}`);
        return 0;
      });
    }
    case 'send': {
      const [workflowId, ...words] = positional(args, 2, 'send <workflow-id> "<text>"');
      return withClient(environment, async (client) => {
        await client.workflow.getHandle(workflowId!).signal(userMessageSignal, { text: words.join(' ') });
        console.log(`Queued for the next turn of ${workflowId}.`);
        return 0;
      });
    }
    case 'end': {
      const [workflowId] = positional(args, 1, 'end <workflow-id>');
      return withClient(environment, async (client) => {
        await client.workflow.getHandle(workflowId!).signal(endSignal);
        console.log(`Asked ${workflowId} to end: an interactive session closes, with its result, once it waits for input.`);
        return 0;
      });
    }
    case 'interrupt': {
      const [workflowId] = positional(args, 1, 'interrupt <workflow-id>');
      return withClient(environment, async (client) => {
        const { stopped } = await client.workflow.getHandle(workflowId!).executeUpdate<InterruptResult, [InterruptRequest]>(interruptUpdate.name, { args: [{}] });
        console.log(stopped === 'nothing' ? `Nothing to interrupt: ${workflowId} is not running a model call or tools.` : `Interrupted the ${stopped === 'model' ? 'model call' : 'tools'} of ${workflowId}.`);
        return 0;
      });
    }
    case 'approve': {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { deny: { type: 'boolean' }, feedback: { type: 'string' } } });
      const [workflowId, toolUseId] = positional(positionals, 2, 'approve <workflow-id> <tool-use-id> [--deny] [--feedback "…"]');
      return withClient(environment, async (client) => {
        const decision = values.deny ? 'deny' : 'allow';
        await client.workflow
          .getHandle(workflowId!)
          .executeUpdate(approveToolUpdate, { args: [{ toolUseId: toolUseId!, decision, ...(values.feedback ? { feedback: values.feedback } : {}) }] })
          .catch((error: Error & { cause?: Error }) => {
            throw new Error(error.cause?.message ?? error.message);
          });
        console.log(`${decision === 'allow' ? 'Allowed' : 'Denied'} ${toolUseId}.`);
        return 0;
      });
    }
    case 'list': {
      const { values } = parseArgs({ args, options: { status: { type: 'string' } } });
      return withClient(environment, async (client) => {
        const filters = [`WorkflowType='${WORKFLOW_TYPE}'`, ...(values.status ? [`${AGENT_STATUS.name}='${values.status}'`] : [])];
        let count = 0;
        for await (const workflow of client.workflow.list({ query: filters.join(' AND ') })) {
          const status = workflow.typedSearchAttributes.get(AGENT_STATUS) ?? '—';
          const turn = workflow.typedSearchAttributes.get(AGENT_TURN) ?? '—';
          console.log(`${workflow.workflowId}\t${workflow.status.name}\t${status}\tturn ${turn}\t${workflow.startTime.toISOString()}`);
          if (++count >= 100) break;
        }
        if (count === 0) console.log('No sessions found.');
        return 0;
      });
    }
    case 'rewind':
    case 'diff':
      return workspaceCommand(command, args, environment);
    case 'move':
      return moveCommand(args, environment);
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}
