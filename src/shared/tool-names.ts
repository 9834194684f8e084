/**
 * Tools offered to the model, with Claude Code compatible names. `Task` is the sub-agent tool's
 * name before Claude Code 2.1.63 renamed it `Agent`: still accepted wherever a tool is named.
 */
export const TOOL_NAMES = [
  'Read',
  'Write',
  'Edit',
  'Bash',
  'Glob',
  'Grep',
  'TodoWrite',
  'Agent',
  'Task',
  'ListMcpResourcesTool',
  'ReadMcpResourceTool',
  'WebFetch',
  'WebSearch',
  'NotebookEdit',
  'Skill',
  'EnterPlanMode',
  'ExitPlanMode',
  'AskUserQuestion',
  'TaskOutput',
  'TaskStop',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/**
 * Old names of tools, and the tool each names now: accepted in input `allowedTools`, agent types'
 * `tools`, allow rules, hooks' matchers and recorded histories (a call named `Task` runs `Agent`).
 */
export const TOOL_ALIASES = { Task: 'Agent' } as const satisfies Partial<Record<ToolName, ToolName>>;
export type ToolAlias = keyof typeof TOOL_ALIASES;

/** The name a tool is offered under, for any name of it. */
export function canonicalToolName(name: string): string {
  return (TOOL_ALIASES as Record<string, string>)[name] ?? name;
}

/** Every name of the tool `name` names: its own and its aliases (`Agent`, `Task`). */
export function namesOfTool(name: string): string[] {
  const canonical = canonicalToolName(name);
  const aliases = Object.entries(TOOL_ALIASES)
    .filter(([, target]) => target === canonical)
    .map(([alias]) => alias);
  return [canonical, ...aliases];
}

/** Whether a list of tool names (`allowedTools`) names the tool `name` by any of its names. */
export function listsTool(names: readonly string[], name: string): boolean {
  return namesOfTool(name).some((candidate) => names.includes(candidate));
}
