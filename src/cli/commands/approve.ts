/** `durable-agent approve`: allows or denies a tool call waiting for approval (update `approveTool`). */
import { parseArgs } from 'node:util';
import type { ApprovalDecision } from '../../shared/contract';
import type { ModeAfterPlan } from '../../shared/plan-mode';
import { positional } from '../arguments';
import { UsageError } from '../usage-error';
import type { Command } from '../command';

/** The session and the decision; wrong arguments throw a UsageError. */
export function parseApproveArguments(args: string[]): { workflowId: string; approval: ApprovalDecision } {
  // An unknown option is not a usage error here (exit 1, no usage): as it always was.
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { deny: { type: 'boolean' }, feedback: { type: 'string' }, mode: { type: 'string' } },
  });
  const [workflowId, toolUseId] = positional(
    positionals,
    2,
    'approve <workflow-id> <tool-use-id> [--deny] [--feedback "…"] [--mode <mode>]',
  );
  const decision = values.deny ? 'deny' : 'allow';
  const mode = values.mode;
  // plan-mode.ts's MODES_AFTER_PLAN, written out: a command file loads nothing beyond src/cli/ (command.ts).
  const modes: readonly string[] = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk'] satisfies ModeAfterPlan[];
  if (mode !== undefined && !modes.includes(mode))
    throw new UsageError(`--mode takes one of ${modes.join(', ')} (the mode an approved plan goes on in)`);
  return {
    workflowId: workflowId!,
    approval: {
      toolUseId: toolUseId!,
      decision,
      ...(values.feedback ? { feedback: values.feedback } : {}),
      ...(mode ? { mode: mode as ModeAfterPlan } : {}),
    },
  };
}

export const approveCommand: Command = {
  name: 'approve',
  usage:
    '  durable-agent approve <workflow-id> <tool-use-id> [--deny] [--feedback "<text>"] [--mode <mode after a plan>]',
  async run(args, environment) {
    const { workflowId, approval } = parseApproveArguments(args);
    const { withClient } = await import('../cli-client');
    const { approveCall } = await import('../session-steering');
    return withClient(environment, (client) => approveCall(client, workflowId, approval));
  },
};
