/**
 * Sub-agents: the `Agent` tool (`Task` before Claude Code 2.1.63) hands a piece of work to a child `agentWorkflow` of a given type.
 * Types come from input `agents` (Claude Code's `--agents` JSON) and from the repository's
 * `.claude/agents/*.md` (read only when trusted, like its hooks). Pure zod and data: imported by
 * the workflow, the activities and the CLI.
 */
import { z } from 'zod';
import { TOOL_NAMES } from './tool-names';

/** The tools a sub-agent gets when its type names none: it looks, it does not change anything. */
export const DEFAULT_SUB_AGENT_TOOLS = ['Read', 'Glob', 'Grep'] as const;

/** The type of an `Agent` call that names none. */
export const DEFAULT_SUB_AGENT_TYPE = 'explore';

/** How many sub-agents of one session run at the same time when input `maxParallelAgents` is unset. */
export const DEFAULT_MAX_PARALLEL_AGENTS = 4;

/** A sub-agent's final text beyond this many characters is cut (the middle goes) in the parent's tool result. */
export const SUB_AGENT_RESULT_MAX_CHARS = 40_000;

export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** One type of sub-agent as input `agents` gives it (the key is its name). */
export const agentDefinitionSchema = z
  .object({
    description: z.string().trim().min(1, 'must say when to use this agent'),
    prompt: z.string().trim().min(1, "must be the agent's instructions (its system prompt)"),
    tools: z.array(z.enum(TOOL_NAMES)).optional(),
    model: z.string().min(1).optional(),
  })
  .strict();

export const agentsSchema = z.record(
  z.string().regex(AGENT_NAME_PATTERN, 'agent names are lowercase letters, digits, - and _'),
  agentDefinitionSchema,
);

/** A type of sub-agent, wherever it was defined. */
export interface AgentType {
  name: string;
  description: string;
  /** Appended to the sub-agent's system prompt. */
  prompt: string;
  /** Its tools; unset: DEFAULT_SUB_AGENT_TOOLS. */
  tools?: string[];
  /** A model id or alias; unset or `inherit`: the parent's current model. */
  model?: string;
  /** Where it was defined: `input` or the repository file. */
  source: string;
}

/** The built-in type: a read-only explorer with the parent's model. */
export const EXPLORE_AGENT: AgentType = {
  name: DEFAULT_SUB_AGENT_TYPE,
  description:
    'Searches and reads the repository to answer a question (finds files, callers, definitions); changes nothing.',
  prompt:
    'You are a sub-agent exploring a repository for another agent. Search and read as needed, then answer with exactly what was asked: file paths with line numbers, and short quotes where they help. Your final message is all the other agent sees.',
  source: 'built-in',
};

/** Every type a session knows: the built-in one, the input's, then the repository's (earlier ones win a name). */
export function agentTypes(
  input: Record<string, z.infer<typeof agentDefinitionSchema>> | undefined,
  repository: readonly AgentType[] = [],
): AgentType[] {
  const types = new Map<string, AgentType>([[EXPLORE_AGENT.name, EXPLORE_AGENT]]);
  for (const [name, definition] of Object.entries(input ?? {}))
    types.set(name, { name, ...definition, source: 'input' });
  for (const type of repository)
    if (!types.has(type.name) || types.get(type.name)!.source === 'built-in') types.set(type.name, type);
  return [...types.values()];
}

/** What the `Agent` tool's input holds, once validated (the fields the workflow uses). */
export interface TaskInput {
  description: string;
  prompt: string;
  subagent_type?: string;
  /** Claude Code's model alias (`sonnet`, `opus`, `haiku`, `fable`): over the type's model. */
  model?: string;
}

/** What `prepareSession` is told of sub-agents: the types the system prompt lists besides the repository's. */
export interface SubAgentsToPrepare {
  agentTypes?: { name: string; description: string }[];
}

/** What `prepareSession` found of sub-agents in the repository. */
export interface PreparedSubAgents {
  /** Types from `.claude/agents/*.md`, read once at the start; only when the repository is trusted. */
  repoAgents?: AgentType[];
  /** Agent files not used, and why (untrusted, or invalid): shown in the transcript. */
  skippedRepoAgents?: string[];
}

/** The input's types as `prepareSession` lists them in the system prompt (none: nothing to send). */
export function agentTypesToPrepare(agents: Record<string, { description: string }> | undefined): SubAgentsToPrepare {
  const types = Object.entries(agents ?? {}).map(([name, { description }]) => ({ name, description }));
  return types.length ? { agentTypes: types } : {};
}
