/**
 * The input of a sub-agent's child workflow, worked out from its parent's input and state and
 * the `Task` call: a pure function, unit-tested without Temporal.
 *
 * What the child inherits, and why (users of other agents report hooks and permissions skipped
 * for sub-agents): the workdir and host it works in, its sandbox (environment, network), the
 * permission mode, allow rules and approval timeout, the input's tool hooks and the trust in the
 * repository's, the limits and the model, unless its type names one. What it does not: stop hooks
 * (they judge the parent's end, not a helper's answer), summaries of tool batches (nobody reads
 * them) and waiting for people between turns (a sub-agent answers once).
 */
import { inheritedHooks } from '../shared/hooks';
import type { ResolvedAgentInput } from '../shared/input';
import { MODEL_ALIASES } from '../shared/models';
import { type AgentType, DEFAULT_SUB_AGENT_TOOLS, DEFAULT_SUB_AGENT_TYPE, type TaskInput } from '../shared/sub-agents';

export interface ParentView {
  workflowId: string;
  /** Where the parent works now (a moved session works elsewhere than it started). */
  workdir: string;
  host?: string;
  /** The parent's current model (after a fallback, the fallback). */
  model: string;
}

export type SubAgentStart = { ok: true; type: AgentType; input: Record<string, unknown> } | { ok: false; error: string };

export function subAgentInput(parent: ResolvedAgentInput, view: ParentView, toolUseId: string, task: TaskInput, types: readonly AgentType[]): SubAgentStart {
  const name = task.subagent_type ?? DEFAULT_SUB_AGENT_TYPE;
  const type = types.find((candidate) => candidate.name === name);
  if (!type) return { ok: false, error: `No agent type "${name}". Agent types: ${types.map((candidate) => candidate.name).join(', ')}.` };
  const model = !type.model || type.model === 'inherit' ? view.model : (MODEL_ALIASES[type.model] ?? type.model);
  const input: Record<string, unknown> = {
    prompt: task.prompt,
    workdir: view.workdir,
    ...(view.host ? { host: view.host } : {}),
    model,
    maxTurns: parent.maxTurns,
    maxOutputTokens: parent.maxOutputTokens,
    systemPrompt: type.prompt,
    allowedTools: [...(type.tools ?? DEFAULT_SUB_AGENT_TOOLS)],
    ...(parent.contextWindowTokens ? { contextWindowTokens: parent.contextWindowTokens } : {}),
    ...(parent.fallbackModel ? { fallbackModel: parent.fallbackModel } : {}),
    fallbackAfterOverloads: parent.fallbackAfterOverloads,
    stopHooks: [],
    interactive: false,
    permissionMode: parent.permissionMode,
    allowRules: parent.allowRules,
    approvalTimeoutMs: parent.approvalTimeoutMs,
    toolSummaries: false,
    ...(parent.continueAsNewAfterTurns ? { continueAsNewAfterTurns: parent.continueAsNewAfterTurns } : {}),
    ...(parent.sandboxEnv ? { sandboxEnv: parent.sandboxEnv } : {}),
    network: parent.network,
    trustRepoHooks: parent.trustRepoHooks,
    // The input's PreToolUse and PostToolUse hooks: a policy or a formatter is never skipped in a helper.
    ...(inheritedHooks(parent.toolHooks) ? { hooks: inheritedHooks(parent.toolHooks) } : {}),
    hostLossTimeoutMs: parent.hostLossTimeoutMs,
    // Only a type that lists Task can start sub-agents of its own; they know the same types.
    ...(parent.agents ? { agents: parent.agents } : {}),
    maxParallelAgents: parent.maxParallelAgents,
    parentSession: { workflowId: view.workflowId, toolUseId, description: task.description },
  };
  return { ok: true, type, input };
}

/** The child's workflow id: the parent's and the call's, so a replayed start finds the same child. */
export function subAgentWorkflowId(parentWorkflowId: string, toolUseId: string): string {
  return `${parentWorkflowId}-task-${toolUseId}`;
}
