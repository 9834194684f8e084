/**
 * Sub-agents: the `Agent` tool (`Task` before Claude Code 2.1.63) hands a piece of work to a child `agentWorkflow` of a given type.
 * Types come from input `agents` (Claude Code's `--agents` JSON) and from the repository's
 * `.claude/agents/*.md` (read only when trusted, like its hooks). Pure zod and data: imported by
 * the workflow, the activities and the CLI.
 */
import { z } from 'zod';
import { PERMISSION_MODES } from './permission-modes';

/**
 * The tools a sub-agent got when its type named none, before Claude Code's definitions
 * (`patched('sub-agent-definitions')`): it looked, it did not change anything. Since, a type
 * without `tools` inherits the parent's (`inheritedTools`).
 */
export const DEFAULT_SUB_AGENT_TOOLS = ['Read', 'Glob', 'Grep'] as const;

/** The type of a `Task` call that named none, before Claude Code's definitions. */
export const DEFAULT_SUB_AGENT_TYPE = 'explore';

/** The type of a call that names none, as in Claude Code. */
export const GENERAL_PURPOSE_TYPE = 'general-purpose';

/**
 * The sub-agent tool, by each of its names: `Task`, and `Agent` (Claude Code's since 2.1.63). A
 * type without `tools` inherits neither: a sub-agent starts sub-agents only when its type lists it.
 */
export const SUB_AGENT_TOOL_NAMES: readonly string[] = ['Task', 'Agent'];

/**
 * The tools that talk to the person at the session (plan mode, questions): a sub-agent answers its
 * parent, not a person, so a type without `tools` inherits none of them.
 */
export const PERSON_TOOL_NAMES: readonly string[] = ['EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion'];

/** How many sub-agents of one session run at the same time when input `maxParallelAgents` is unset. */
export const DEFAULT_MAX_PARALLEL_AGENTS = 4;

/** A sub-agent's final text beyond this many characters is cut (the middle goes) in the parent's tool result. */
export const SUB_AGENT_RESULT_MAX_CHARS = 40_000;

export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Claude Code's permission modes as an agent definition names them (its `auto` is ours: `bypassPermissions`). */
export const AGENT_PERMISSION_MODES = [...PERMISSION_MODES, 'auto'] as const;
export type AgentPermissionMode = (typeof AGENT_PERMISSION_MODES)[number];

const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** An MCP server of an agent: by name, or inline config (accepted, not used: see docs/sub-agents.md). */
const agentMcpServerSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);

/**
 * One type of sub-agent as input `agents` gives it (the key is its name): Claude Code's
 * `AgentDefinition`, every field (test/unit/shared/sub-agents.test.ts checks the type against
 * the SDK's). Applied: `description`, `prompt`, `tools`, `disallowedTools`, `model`, `maxTurns`,
 * `permissionMode` (never looser than the parent's), `initialPrompt`. The rest is accepted and
 * ignored (docs/sub-agents.md says why). Tool names we do not have are left out, with a note.
 */
export const agentDefinitionSchema = z
  .object({
    description: z.string().trim().min(1, 'must say when to use this agent'),
    prompt: z.string().trim().min(1, "must be the agent's instructions (its system prompt)"),
    tools: z.array(z.string()).optional(),
    disallowedTools: z.array(z.string()).optional(),
    model: z.string().min(1).optional(),
    mcpServers: z.array(agentMcpServerSchema).optional(),
    criticalSystemReminder_EXPERIMENTAL: z.string().optional(),
    skills: z.array(z.string()).optional(),
    initialPrompt: z.string().optional(),
    maxTurns: z.number().int().positive().optional(),
    autoCompactWindow: z.number().optional(),
    background: z.boolean().optional(),
    omitClaudeMd: z.boolean().optional(),
    memory: z.enum(['user', 'project', 'local']).optional(),
    effort: z.union([z.enum(EFFORT_LEVELS), z.number()]).optional(),
    permissionMode: z.enum(AGENT_PERMISSION_MODES).optional(),
    observer: z.string().optional(),
    observerMessage: z.string().optional(),
  })
  .strict();

export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

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
  /** Its tools; unset: the parent's but the sub-agent tool (before Claude Code's definitions: DEFAULT_SUB_AGENT_TOOLS). */
  tools?: string[];
  /** Tools it never gets, even inherited. */
  disallowedTools?: string[];
  /** A model id or alias; unset or `inherit`: the parent's current model. */
  model?: string;
  /** Its turns at most (never more than the parent's). */
  maxTurns?: number;
  /** Its mode, when stricter than the parent's (the parent's otherwise). */
  permissionMode?: AgentPermissionMode;
  /** Before the task, in the sub-agent's first user message. */
  initialPrompt?: string;
  /** `worktree`: it works in a worktree of its own, merged back when it ends (its calls need not say so). */
  isolation?: 'worktree';
  /** Where it was defined: `input`, `built-in` or the repository file. */
  source: string;
}

/** The built-in type before Claude Code's definitions: a read-only explorer with the parent's model. */
export const EXPLORE_AGENT: AgentType = {
  name: DEFAULT_SUB_AGENT_TYPE,
  description:
    'Searches and reads the repository to answer a question (finds files, callers, definitions); changes nothing.',
  prompt:
    'You are a sub-agent exploring a repository for another agent. Search and read as needed, then answer with exactly what was asked: file paths with line numbers, and short quotes where they help. Your final message is all the other agent sees.',
  source: 'built-in',
};

/**
 * Claude Code's `Explore`: every tool of the parent but those that change files or start
 * sub-agents (its Bash is told to stay read-only; the permission mode still governs it).
 * `explore` names it too. Like every sub-agent, it has the parent's model.
 */
export const EXPLORE_TYPE: AgentType = {
  name: 'Explore',
  description:
    'Fast agent for exploring a codebase: finds files by patterns, searches code for keywords, answers questions about the code. Say how thorough to be: "quick", "medium" or "very thorough". Changes nothing.',
  prompt:
    'You are a sub-agent exploring a repository for another agent, in READ-ONLY mode: never create, change or delete files (Bash only for commands that read, such as ls, git log, git diff, find). Search and read as needed, then answer with exactly what was asked: file paths with line numbers, and short quotes where they help. Your final message is all the other agent sees.',
  disallowedTools: [...SUB_AGENT_TOOL_NAMES, 'Edit', 'Write', 'NotebookEdit', 'ExitPlanMode'],
  source: 'built-in',
};

/** Claude Code's `general-purpose`, the type of a call that names none: all the parent's tools but the sub-agent tool. */
export const GENERAL_PURPOSE_AGENT: AgentType = {
  name: GENERAL_PURPOSE_TYPE,
  description:
    'General-purpose agent for researching complex questions, searching for code and carrying out multi-step tasks, changes included. Use it when a search may take several attempts.',
  prompt:
    'You are a sub-agent doing a task for another agent. Do what was asked completely, neither more nor less; then answer with a concise account of what you found or did (file paths with line numbers where they help). Your final message is all the other agent sees.',
  source: 'built-in',
};

/** Options of `agentTypes`: which built-in types a session has. */
export interface AgentTypesOptions {
  /** Claude Code's `general-purpose` and `Explore` (`patched('sub-agent-definitions')`); else the old `explore`. */
  claudeCode?: boolean;
}

/** Every type a session knows: the built-in ones, the input's, then the repository's (earlier ones win a name). */
export function agentTypes(
  input: Record<string, AgentDefinition> | undefined,
  repository: readonly AgentType[] = [],
  options: AgentTypesOptions = {},
): AgentType[] {
  const builtIn = options.claudeCode ? [GENERAL_PURPOSE_AGENT, EXPLORE_TYPE] : [EXPLORE_AGENT];
  const types = new Map<string, AgentType>(builtIn.map((type) => [type.name, type]));
  for (const [name, definition] of Object.entries(input ?? {}))
    types.set(name, { ...definition, name, source: 'input' });
  for (const type of repository)
    if (!types.has(type.name) || types.get(type.name)!.source === 'built-in') types.set(type.name, type);
  return [...types.values()];
}

/** A type by the name a call gives: exactly, or `explore` for Claude Code's `Explore` when no type has that name. */
export function findAgentType(types: readonly AgentType[], name: string): AgentType | undefined {
  return (
    types.find((type) => type.name === name) ??
    (name === DEFAULT_SUB_AGENT_TYPE ? types.find((type) => type.name === EXPLORE_TYPE.name) : undefined)
  );
}

/** What the `Agent` tool's input holds, once validated (the fields the workflow uses). */
export interface TaskInput {
  description: string;
  prompt: string;
  subagent_type?: string;
  /** Claude Code's model alias (`sonnet`, `opus`, `haiku`, `fable`): over the type's model. */
  model?: string;
  /** `worktree`: a writing sub-agent, in a worktree of its own merged back when it ends (issue 27). */
  isolation?: string;
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
