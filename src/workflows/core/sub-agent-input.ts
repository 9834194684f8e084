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
 *
 * A sub-agent never exceeds its parent (issue 22): its tools are those of its type that the
 * parent has, and the bounds (permission mode, allow rules, sandbox, network, trust, hooks) are
 * the parent's alone. A type is text a repository or a caller wrote: it names tools and a
 * model, nothing else reaches the child's input from it.
 */
import { sessionAllowedDomains } from '../../shared/sandbox';
import type { TranscriptEntry } from '../../shared/contract';
import { inheritedHooks } from '../../shared/hooks';
import type { ResolvedAgentInput } from '../../shared/input';
import { MODEL_ALIASES } from '../../shared/models';
import {
  type AgentType,
  DEFAULT_SUB_AGENT_TOOLS,
  DEFAULT_SUB_AGENT_TYPE,
  type TaskInput,
} from '../../shared/sub-agents';

export interface ParentView {
  workflowId: string;
  /** Where the parent works now (a moved session works elsewhere than it started). */
  workdir: string;
  host?: string;
  /** The parent's current model (after a fallback, the fallback). */
  model: string;
}

/** `toolsLeftOut`: the tools its type asked for that the parent does not have (none: nothing was cut). */
export type SubAgentStart =
  { ok: true; type: AgentType; input: Record<string, unknown>; toolsLeftOut: string[] } | { ok: false; error: string };

export interface SubAgentOptions {
  /**
   * The child's tools are cut to the parent's (`patched('sub-agent-bounds')`). Off only for the
   * starts of histories recorded before the bound: they replay with the tools they were started with.
   */
  boundByParent: boolean;
}

/**
 * The tools a sub-agent gets: those its type asks for (its list, or the defaults) that its parent
 * has, in the type's order; `Task` only when both allow it. The rest is left out, and said so.
 */
export function subAgentTools(
  asked: readonly string[],
  parentTools: readonly string[],
): { tools: string[]; leftOut: string[] } {
  const unique = [...new Set(asked)];
  return {
    tools: unique.filter((tool) => parentTools.includes(tool)),
    leftOut: unique.filter((tool) => !parentTools.includes(tool)),
  };
}

/** What both transcripts say of a type cut down to its parent's tools. */
export function toolsLeftOutNote(
  toolUseId: string,
  agentType: string,
  leftOut: readonly string[],
): Omit<Extract<TranscriptEntry, { type: 'sub_agent_tools' }>, 'turn'> {
  const detail = `Sub-agent type ${agentType} asked for ${leftOut.join(', ')}; the parent does not have ${leftOut.length === 1 ? 'it' : 'them'}: left out.`;
  return { type: 'sub_agent_tools', toolUseId, agentType, leftOut: [...leftOut], detail };
}

export function subAgentInput(
  parent: ResolvedAgentInput,
  view: ParentView,
  toolUseId: string,
  task: TaskInput,
  types: readonly AgentType[],
  options: SubAgentOptions,
): SubAgentStart {
  const name = task.subagent_type ?? DEFAULT_SUB_AGENT_TYPE;
  const type = types.find((candidate) => candidate.name === name);
  if (!type)
    return {
      ok: false,
      error: `No agent type "${name}". Agent types: ${types.map((candidate) => candidate.name).join(', ')}.`,
    };
  const model = !type.model || type.model === 'inherit' ? view.model : (MODEL_ALIASES[type.model] ?? type.model);
  const asked = type.tools ?? DEFAULT_SUB_AGENT_TOOLS;
  const { tools, leftOut } = options.boundByParent
    ? subAgentTools(asked, parent.allowedTools)
    : { tools: [...asked], leftOut: [] };
  const input: Record<string, unknown> = {
    prompt: task.prompt,
    workdir: view.workdir,
    ...(view.host ? { host: view.host } : {}),
    model,
    maxTurns: parent.maxTurns,
    maxOutputTokens: parent.maxOutputTokens,
    systemPrompt: type.prompt,
    allowedTools: tools,
    ...(parent.contextWindowTokens ? { contextWindowTokens: parent.contextWindowTokens } : {}),
    ...(parent.fallbackModel ? { fallbackModel: parent.fallbackModel } : {}),
    fallbackAfterOverloads: parent.fallbackAfterOverloads,
    stopHooks: [],
    interactive: false,
    // The parent's own mode: no type names one (input types reject the field, front matter's is
    // not read), so a child of an `ask` parent asks too.
    permissionMode: parent.permissionMode,
    allowRules: parent.allowRules,
    approvalTimeoutMs: parent.approvalTimeoutMs,
    toolSummaries: false,
    ...(parent.continueAsNewAfterTurns ? { continueAsNewAfterTurns: parent.continueAsNewAfterTurns } : {}),
    ...(parent.sandboxEnv ? { sandboxEnv: parent.sandboxEnv } : {}),
    network: parent.network,
    // The parent's hosts, its repo's remote included: the child works in the same clone.
    ...(sessionAllowedDomains(parent).length ? { allowedDomains: sessionAllowedDomains(parent) } : {}),
    trustRepoHooks: parent.trustRepoHooks,
    // The input's PreToolUse and PostToolUse hooks: a policy or a formatter is never skipped in a helper.
    ...(inheritedHooks(parent.toolHooks) ? { hooks: inheritedHooks(parent.toolHooks) } : {}),
    hostLossTimeoutMs: parent.hostLossTimeoutMs,
    // Only a type that lists Task can start sub-agents of its own; they know the same types.
    ...(parent.agents ? { agents: parent.agents } : {}),
    maxParallelAgents: parent.maxParallelAgents,
    parentSession: {
      workflowId: view.workflowId,
      toolUseId,
      description: task.description,
      agentType: type.name,
      // Only when something was cut: the child's transcript says so too.
      ...(leftOut.length ? { toolsLeftOut: { agentType: type.name, tools: leftOut } } : {}),
    },
  };
  return { ok: true, type, input, toolsLeftOut: leftOut };
}

/** The child's workflow id: the parent's and the call's, so a replayed start finds the same child. */
export function subAgentWorkflowId(parentWorkflowId: string, toolUseId: string): string {
  return `${parentWorkflowId}-task-${toolUseId}`;
}
