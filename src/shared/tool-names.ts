/** Tools offered to the model, with Claude Code compatible names. */
export const TOOL_NAMES = [
  'Read',
  'Write',
  'Edit',
  'Bash',
  'Glob',
  'Grep',
  'TodoWrite',
  'Task',
  'EnterPlanMode',
  'ExitPlanMode',
  'AskUserQuestion',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
