/**
 * Write and Edit of the files that hold a repository's hooks (`.agent/settings.json`,
 * `.claude/settings.json`) or its MCP servers (`.mcp.json`): a hook or server written there runs
 * commands in later sessions on the repository, so no allow rule approves such a change, a person
 * must; in permissionMode "auto", where nobody is asked, it is refused.
 */
import { realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { SETTINGS_FILES } from '../hooks/settings';
import { MCP_JSON } from '../mcp/mcp-json';
import { type ApprovalFacts, type ToolContext, ToolError } from './tool';

/** The settings file a resolved path is, relative to the workdir; undefined for any other file. */
export function settingsFileAt(workdir: string, path: string): string | undefined {
  const shown = relative(realpathSync(workdir), path).split(sep).join('/');
  return [...SETTINGS_FILES, MCP_JSON].find((file) => file === shown);
}

/** What the file holds: `.mcp.json`'s stdio servers are commands too. */
function holds(file: string): string {
  return file === MCP_JSON ? "the repository's MCP servers" : "the repository's hooks";
}

/** Planning: a change to a settings file always waits for a person. */
export function settingsApproval(_input: unknown, { workdir, filePath }: { workdir: string; filePath?: string }): ApprovalFacts {
  const file = filePath && settingsFileAt(workdir, filePath);
  return file ? { alwaysAsk: `it changes ${file}, whose ${file === MCP_JSON ? 'MCP servers' : 'hooks'} run commands in later sessions` } : {};
}

/** Running: refuses a change to a settings file that no person approved. */
export function assertSettingsChangeApproved(context: ToolContext, path: string): void {
  const file = settingsFileAt(context.workdir, path);
  if (!file || context.approved) return;
  throw new ToolError(
    `${file} holds ${holds(file)}, which run commands in later sessions, so changing it needs a person's approval ` +
      '(permissionMode "ask"); in this session nobody is asked. Leave it unchanged and mention the change you would make in your final answer.',
  );
}
