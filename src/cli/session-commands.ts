/**
 * `durable-agent watch | status | send | end | interrupt | approve | list`: the steering actions,
 * through the same signals, updates and queries the Temporal CLI uses (see README).
 */
import { parseArgs } from 'node:util';
import type { InterruptRequest, InterruptResult } from '../shared/contract';
import { approveToolUpdate, endSignal, interruptUpdate, userMessageSignal } from '../workflows/definitions';
import { UsageError, withClient } from './cli-client';
import { whileRunning } from './finished-session';
import { moveCommand } from './host-commands';
import { listCommand, statusCommand } from './status-commands';

export function positional(args: string[], count: number, usage: string): string[] {
  if (args.length < count) throw new UsageError(`usage: durable-agent ${usage}`);
  return args;
}

export async function sessionCommand(command: string, args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  switch (command) {
    case 'watch': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { json: { type: 'boolean' } },
      });
      const [workflowId] = positional(positionals, 1, 'watch <workflow-id> [--json]');
      // The printers load for watch only: every other command starts without them.
      const { followSession } = await import('./follow');
      return withClient(environment, (client, store) =>
        followSession(client, workflowId!, { store, json: values.json === true }),
      );
    }
    case 'status':
      return statusCommand(args, environment);
    case 'send': {
      const [workflowId, ...words] = positional(args, 2, 'send <workflow-id> "<text>"');
      return withClient(environment, async (client) => {
        const handle = client.workflow.getHandle(workflowId!);
        await whileRunning(client, workflowId!, () => handle.signal(userMessageSignal, { text: words.join(' ') }));
        console.log(`Queued for the next turn of ${workflowId}.`);
        return 0;
      });
    }
    case 'end': {
      const [workflowId] = positional(args, 1, 'end <workflow-id>');
      return withClient(environment, async (client) => {
        await whileRunning(client, workflowId!, () => client.workflow.getHandle(workflowId!).signal(endSignal));
        console.log(
          `Asked ${workflowId} to end: an interactive session closes, with its result, once it waits for input.`,
        );
        return 0;
      });
    }
    case 'interrupt': {
      const [workflowId] = positional(args, 1, 'interrupt <workflow-id>');
      return withClient(environment, async (client) => {
        const handle = client.workflow.getHandle(workflowId!);
        const interrupt = () =>
          handle.executeUpdate<InterruptResult, [InterruptRequest]>(interruptUpdate.name, { args: [{}] });
        const { stopped } = await whileRunning(client, workflowId!, interrupt);
        console.log(
          stopped === 'nothing'
            ? `Nothing to interrupt: ${workflowId} is not running a model call or tools.`
            : `Interrupted the ${stopped === 'model' ? 'model call' : 'tools'} of ${workflowId}.`,
        );
        return 0;
      });
    }
    case 'approve': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { deny: { type: 'boolean' }, feedback: { type: 'string' } },
      });
      const [workflowId, toolUseId] = positional(
        positionals,
        2,
        'approve <workflow-id> <tool-use-id> [--deny] [--feedback "…"]',
      );
      return withClient(environment, async (client) => {
        const decision = values.deny ? 'deny' : 'allow';
        const request = { toolUseId: toolUseId!, decision, ...(values.feedback ? { feedback: values.feedback } : {}) };
        const handle = client.workflow.getHandle(workflowId!);
        const approve = () => handle.executeUpdate(approveToolUpdate, { args: [request] });
        await whileRunning(client, workflowId!, approve).catch((error: Error & { cause?: Error }) => {
          throw new Error(error.cause?.message ?? error.message);
        });
        console.log(`${decision === 'allow' ? 'Allowed' : 'Denied'} ${toolUseId}.`);
        return 0;
      });
    }
    case 'list':
      return listCommand(args, environment);
    case 'rewind':
    case 'diff':
      // Imported here: the workspace's modules (zod schemas, diffs) would slow every other command's start.
      return (await import('./workspace-commands')).workspaceCommand(command, args, environment);
    case 'move':
      return moveCommand(args, environment);
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}
