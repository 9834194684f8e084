/**
 * The input of a sub-agent's child workflow, worked out from its parent's input and state and
 * the `Agent` call (`Task` in older histories): a pure function, unit-tested without Temporal.
 *
 * What the child inherits, and why (users of other agents report hooks and permissions skipped
 * for sub-agents): the workdir and host it works in, its sandbox (environment, network), the
 * permission mode, allow rules and approval timeout, the input's tool hooks and the trust in the
 * repository's, the limits and the model, unless its type names one. What it does not: stop hooks
 * (they judge the parent's end, not a helper's answer), summaries of tool batches (nobody reads
 * them) and waiting for people between turns (a sub-agent answers once).
 *
 * A sub-agent never exceeds its parent (issue 22): its tools are those of its type that the
 * parent has, and the bounds (allow rules, sandbox, network, trust, hooks) are the parent's
 * alone. A type is text a repository or a caller wrote: since Claude Code's definitions (issue
 * 25, `patched('sub-agent-definitions')`) it names tools and tools it never gets, a model, a
 * turn limit and a permission mode that only ever narrow the parent's, and an initial prompt;
 * nothing else reaches the child's input from it.
 */
import { sessionAllowedDomains } from '../../shared/sandbox';
import type { TranscriptEntry } from '../../shared/contract';
import { inheritedHooks } from '../../shared/hooks';
import type { ResolvedAgentInput } from '../../shared/input';
import { MODEL_ALIASES } from '../../shared/models';
import { listsTool } from '../../shared/tool-names';
import {
  type PermissionMode,
  type PermissionModeName,
  permissionModeOf,
  stricterMode,
} from '../../shared/permission-modes';
import {
  type AgentPermissionMode,
  type AgentType,
  DEFAULT_SUB_AGENT_TOOLS,
  DEFAULT_SUB_AGENT_TYPE,
  findAgentType,
  GENERAL_PURPOSE_TYPE,
  PERSON_TOOL_NAMES,
  SUB_AGENT_TOOL_NAMES,
  type TaskInput,
} from '../../shared/sub-agents';

export interface ParentView {
  workflowId: string;
  /** Where the parent works now (a moved session works elsewhere than it started). */
  workdir: string;
  host?: string;
  /** The parent's current model (after a fallback, the fallback). */
  model: string;
  /** The parent's permission mode now (a trusted repository's defaultMode included); absent: its input's. */
  permissionMode?: PermissionMode;
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
  /**
   * Claude Code's agent definitions (`patched('sub-agent-definitions')`): a type without `tools`
   * inherits the parent's, `disallowedTools`, `maxTurns`, `permissionMode` and `initialPrompt`
   * apply, and a call without `subagent_type` is `general-purpose`. Off for the starts of
   * histories recorded before: a type without tools had Read, Glob, Grep; the default was `explore`.
   */
  claudeCodeDefinitions?: boolean;
}

/** The tools a type without `tools` has: its parent's, but the sub-agent tool and the person's tools. */
export function inheritedTools(parentTools: readonly string[]): string[] {
  return parentTools.filter((tool) => !SUB_AGENT_TOOL_NAMES.includes(tool) && !PERSON_TOOL_NAMES.includes(tool));
}

/**
 * The child's permission mode: the stricter of its parent's and its type's (a type never loosens
 * it). The parent's own name when the type names none or a looser one, so nothing changes for them.
 */
export function subAgentPermissionMode(
  parentMode: PermissionModeName,
  typeMode: AgentPermissionMode | undefined,
): PermissionModeName {
  if (!typeMode) return parentMode;
  const parent = permissionModeOf(parentMode);
  const stricter = stricterMode(parent, permissionModeOf(typeMode));
  return stricter === parent ? parentMode : stricter;
}

/** The child's turns: its type's limit when lower than its parent's. */
export function subAgentMaxTurns(parentMaxTurns: number, typeMaxTurns: number | undefined): number {
  return typeMaxTurns ? Math.min(typeMaxTurns, parentMaxTurns) : parentMaxTurns;
}

/** The tools a type asks for: its list (or the defaults), without its disallowed ones. */
function askedTools(type: AgentType, parentTools: readonly string[], claudeCode: boolean): string[] {
  if (!claudeCode) return [...(type.tools ?? DEFAULT_SUB_AGENT_TOOLS)];
  const listed = type.tools ?? inheritedTools(parentTools);
  return listed.filter((tool) => !type.disallowedTools?.includes(tool));
}

/**
 * The tools a sub-agent gets: those its type asks for (its list, or the defaults) that its parent
 * has (by any of its names: `Task` is `Agent`), in the type's order; `Agent` only when both allow
 * it. The rest is left out, and said so.
 */
export function subAgentTools(
  asked: readonly string[],
  parentTools: readonly string[],
): { tools: string[]; leftOut: string[] } {
  const unique = [...new Set(asked)];
  return {
    tools: unique.filter((tool) => listsTool(parentTools, tool)),
    leftOut: unique.filter((tool) => !listsTool(parentTools, tool)),
  };
}

/** The parent's window and its bound on rate-limit waits: a child never waits longer than its parent would. */
function inheritedLimits(parent: ResolvedAgentInput): Record<string, number> {
  return {
    ...(parent.contextWindowTokens ? { contextWindowTokens: parent.contextWindowTokens } : {}),
    ...(parent.maxRateLimitWaitMs !== undefined ? { maxRateLimitWaitMs: parent.maxRateLimitWaitMs } : {}),
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
  const claudeCode = options.claudeCodeDefinitions === true;
  const name = task.subagent_type ?? (claudeCode ? GENERAL_PURPOSE_TYPE : DEFAULT_SUB_AGENT_TYPE);
  const type = claudeCode ? findAgentType(types, name) : types.find((candidate) => candidate.name === name);
  if (!type)
    return {
      ok: false,
      error: `No agent type "${name}". Agent types: ${types.map((candidate) => candidate.name).join(', ')}.`,
    };
  // The call's `model` (only Claude Code's aliases pass its schema) over the type's, over the parent's.
  const named = task.model ?? type.model;
  const model = !named || named === 'inherit' ? view.model : (MODEL_ALIASES[named] ?? named);
  const asked = askedTools(type, parent.allowedTools, claudeCode);
  const { tools, leftOut } = options.boundByParent
    ? subAgentTools(asked, parent.allowedTools)
    : { tools: [...asked], leftOut: [] };
  const input: Record<string, unknown> = {
    prompt: claudeCode && type.initialPrompt?.trim() ? `${type.initialPrompt.trim()}\n\n${task.prompt}` : task.prompt,
    workdir: view.workdir,
    ...(view.host ? { host: view.host } : {}),
    model,
    maxTurns: claudeCode ? subAgentMaxTurns(parent.maxTurns, type.maxTurns) : parent.maxTurns,
    maxOutputTokens: parent.maxOutputTokens,
    systemPrompt: type.prompt,
    allowedTools: tools,
    ...inheritedLimits(parent),
    ...(parent.fallbackModel ? { fallbackModel: parent.fallbackModel } : {}),
    fallbackAfterOverloads: parent.fallbackAfterOverloads,
    stopHooks: [],
    interactive: false,
    permissionMode: childPermissionMode(parent, view, claudeCode ? type.permissionMode : undefined),
    allowRules: parent.allowRules,
    // Its rules too (the repository's are read again when the child is prepared).
    ...(parent.permissions ? { permissions: parent.permissions } : {}),
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
    // Only a type that lists Agent (or Task) can start sub-agents of its own; they know the same types.
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

/** The parent's mode, by the name its input gave when that is the mode (sessions recorded with `auto` pass `auto`). */
/**
 * Never looser than the parent's (its current mode: plan mode may have ended), so a child of an
 * `ask` parent asks too; its type's mode may narrow it (before Claude Code's definitions no type could name one).
 */
function childPermissionMode(
  parent: ResolvedAgentInput,
  view: ParentView,
  typeMode: AgentPermissionMode | undefined,
): PermissionModeName {
  return subAgentPermissionMode(inheritedMode(parent, view), typeMode);
}

function inheritedMode(parent: ResolvedAgentInput, view: ParentView): PermissionModeName {
  const mode = view.permissionMode;
  return mode === undefined || permissionModeOf(parent.permissionMode) === mode ? parent.permissionMode : mode;
}

/** The child's workflow id: the parent's and the call's, so a replayed start finds the same child. */
export function subAgentWorkflowId(parentWorkflowId: string, toolUseId: string): string {
  return `${parentWorkflowId}-task-${toolUseId}`;
}
