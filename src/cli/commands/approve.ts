/** `durable-agent approve`: allows or denies a tool call waiting for approval (update `approveTool`). */
import { parseArgs } from 'node:util';
import type { ApprovalDecision } from '../../shared/contract';
import { positional } from '../arguments';
import type { Command } from '../command';

/** The session and the decision; wrong arguments throw a UsageError. */
export function parseApproveArguments(args: string[]): { workflowId: string; approval: ApprovalDecision } {
  // An unknown option is not a usage error here (exit 1, no usage): as it always was.
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
  const decision = values.deny ? 'deny' : 'allow';
  return {
    workflowId: workflowId!,
    approval: { toolUseId: toolUseId!, decision, ...(values.feedback ? { feedback: values.feedback } : {}) },
  };
}

export const approveCommand: Command = {
  name: 'approve',
  usage: '  durable-agent approve <workflow-id> <tool-use-id> [--deny] [--feedback "<text>"]',
  async run(args, environment) {
    const { workflowId, approval } = parseApproveArguments(args);
    const { withClient } = await import('../cli-client');
    const { approveCall } = await import('../session-steering');
    return withClient(environment, (client) => approveCall(client, workflowId, approval));
  },
};
