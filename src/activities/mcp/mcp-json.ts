/**
 * `.mcp.json` at the workdir's root: the repository's MCP servers, in Claude Code's format
 * (`{"mcpServers": {"name": {"command": …} | {"type": "http", "url": …}}}`). A stdio server is a
 * command the repository asks to run, so, like repository hooks, they are used only when trusted
 * (input `trustRepoHooks`, or the worker's `AGENT_TRUST_REPO_HOOKS=1`); otherwise the transcript
 * says the file was found and skipped. Read once when the session starts (prepareSession): a
 * command the model writes cannot add servers to its own session.
 */
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/errors';
import { mcpJsonSchema, type McpPrepared } from '../../shared/mcp';
import type { Workdir } from '../../workdir/workdir';
import { unreadableReason, WorkdirRefusal } from '../../workdir/workdir-refusal';

/** A `.mcp.json` larger than this is not read (real ones are a few KB). */
const MCP_JSON_MAX_BYTES = 1024 * 1024;

export const MCP_JSON = '.mcp.json';

/** What prepareSession records of the file: its servers when trusted, the note that it was skipped when not. */
export async function readRepoMcp(
  workdir: Workdir,
  trusted: boolean,
): Promise<Pick<McpPrepared, 'repoMcpServers' | 'skippedMcpJson'>> {
  let text: string;
  try {
    const head = await workdir.readHead(MCP_JSON, MCP_JSON_MAX_BYTES + 1);
    if (head === undefined) return {};
    if (head.size > MCP_JSON_MAX_BYTES) return { skippedMcpJson: `${MCP_JSON} (larger than 1 MiB)` };
    text = head.data.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    // Not a regular file inside the workdir (a FIFO, a link leading out): never opened, trusted or not.
    if (error instanceof WorkdirRefusal) return { skippedMcpJson: `${MCP_JSON} (${unreadableReason(error)})` };
    if (!trusted) return { skippedMcpJson: `${MCP_JSON} (unreadable)` };
    throw ApplicationFailure.nonRetryable(
      `${MCP_JSON} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      ErrorType.InvalidWorkflowInput,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (!trusted) return { skippedMcpJson: `${MCP_JSON} (not valid JSON)` };
    throw ApplicationFailure.nonRetryable(`${MCP_JSON} is not valid JSON`, ErrorType.InvalidWorkflowInput);
  }
  if (!trusted) {
    // Not validated: a file that is not used cannot stop the session. Only its size is told.
    const servers = (json as { mcpServers?: unknown } | null)?.mcpServers;
    const count = servers && typeof servers === 'object' ? Object.keys(servers).length : 0;
    return count > 0
      ? {
          skippedMcpJson: `${MCP_JSON} (${count} server${count > 1 ? 's' : ''}: ${Object.keys(servers as object)
            .slice(0, 10)
            .join(', ')})`,
        }
      : {};
  }
  const parsed = mcpJsonSchema.safeParse(json);
  if (!parsed.success) {
    // The field, never its value: it would enter history (and may hold a token).
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`);
    throw ApplicationFailure.nonRetryable(`${MCP_JSON}: ${problems.join('; ')}`, ErrorType.InvalidWorkflowInput);
  }
  return Object.keys(parsed.data.mcpServers).length ? { repoMcpServers: parsed.data.mcpServers } : {};
}
