/**
 * Write and Edit of the files that hold a repository's hooks (`.agent/settings.json`,
 * `.claude/settings.json`), its MCP servers (`.mcp.json`) or its sub-agent types
 * (`.claude/agents/*.md`): a hook or server written there runs commands in later sessions on the
 * repository, a type can grant sub-agents Bash, so no allow rule approves such a change, a person
 * must; in permission mode bypassPermissions ("auto"), where nobody is asked, it is refused.
 */
import { relative, sep } from 'node:path';
import { SETTINGS_FILES } from '../hooks/settings';
import { MCP_JSON } from '../mcp/mcp-json';
import { AGENTS_DIR } from '../session/agent-files';
import { type ApprovalFacts, type ToolContext, ToolError } from './tool';

/** The settings file a resolved path is, relative to the workdir; undefined for any other file. */
export function settingsFileAt(workdir: string, path: string): string | undefined {
  // The workdir is its real path (prepareSession resolved it), and so is `path` (resolveInWorkdir).
  const shown = relative(workdir, path).split(sep).join('/');
  if (isAgentFile(shown)) return shown;
  return [...SETTINGS_FILES, MCP_JSON].find((file) => file === shown);
}

const isAgentFile = (shown: string) =>
  shown.startsWith(`${AGENTS_DIR}/`) && shown.endsWith('.md') && !shown.slice(AGENTS_DIR.length + 1).includes('/');

/** What the file holds: `.mcp.json`'s stdio servers are commands too; an agent type grants tools. */
function holds(file: string): string {
  if (isAgentFile(file)) return 'a sub-agent type (its tools and instructions)';
  return file === MCP_JSON ? "the repository's MCP servers" : "the repository's hooks";
}

/** Planning: a change to a settings file always waits for a person. */
export function settingsApproval(
  _input: unknown,
  { workdir, filePath }: { workdir: string; filePath?: string },
): ApprovalFacts {
  const file = filePath && settingsFileAt(workdir, filePath);
  if (!file) return {};
  if (isAgentFile(file)) return { alwaysAsk: `it changes ${file}, a sub-agent type whose tools later sessions grant` };
  return {
    alwaysAsk: `it changes ${file}, whose ${file === MCP_JSON ? 'MCP servers' : 'hooks'} run commands in later sessions`,
  };
}

/** Running: refuses a change to a settings file that no person approved. */
export function assertSettingsChangeApproved(context: ToolContext, path: string): void {
  const file = settingsFileAt(context.workdir, path);
  if (!file || context.approved) return;
  throw new ToolError(
    `${file} holds ${holds(file)}, which ${isAgentFile(file) ? 'later sessions trust' : 'run commands in later sessions'}, so changing it needs a person's approval ` +
      '(a permission mode that asks, such as default or acceptEdits); in this session nobody is asked. Leave it unchanged and mention the change you would make in your final answer.',
  );
}
