/**
 * The session's MCP tools as the model activity sees them: their API definitions (the servers'
 * own JSON Schemas) after the built-in tools, and the plan of each `tool_use` of one — its rules
 * say that it goes to an MCP server, that it needs approval in "ask" mode, and which bare allow
 * rules (`mcp__server`) approve it, so the workflow follows them without knowing MCP.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { PlannedToolUse } from '../../shared/activity-io';
import { toolUseError } from '../../shared/conversation';
import { type McpToolDefinition, mcpRuleNames, type StoredMcpCatalog } from '../../shared/mcp';
import { type ContentStore, getJson } from '../../store/content-store';

/** How much of a call's arguments its one-line summary shows. */
const SUMMARY_ARGUMENTS_CHARS = 80;

export class McpCatalog {
  private constructor(
    readonly tools: readonly McpToolDefinition[],
    /** The servers that offer resources (the resource tools are offered when there is one). */
    readonly resourceServers: readonly string[] = [],
  ) {}

  static async load(store: ContentStore, ref: string | undefined): Promise<McpCatalog | undefined> {
    if (!ref) return undefined;
    const stored = await getJson<StoredMcpCatalog>(store, ref);
    return Array.isArray(stored) ? new McpCatalog(stored) : new McpCatalog(stored.tools, stored.resourceServers);
  }

  static of(tools: readonly McpToolDefinition[], resourceServers: readonly string[] = []): McpCatalog {
    return new McpCatalog(tools, resourceServers);
  }

  apiDefinitions(): Anthropic.Tool[] {
    return this.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: { type: 'object', ...tool.inputSchema } as Anthropic.Tool.InputSchema,
    }));
  }

  /** The plan of a `tool_use` of one of these tools; undefined for any other tool. */
  plan(block: { id: string; name: string; input: unknown }): PlannedToolUse | undefined {
    const tool = this.tools.find((candidate) => candidate.name === block.name);
    return tool ? planMcpCall(block, tool) : undefined;
  }
}

/** The plan of a call of a server's tool (also of one a PreToolUse hook's `updatedInput` changed). */
export function planMcpCall(
  block: { id: string; name: string; input: unknown },
  tool: { server: string; tool: string },
): PlannedToolUse {
  const rules = {
    needsApproval: true as const,
    subject: '',
    mcp: { server: tool.server, tool: tool.tool },
    allowedBy: mcpRuleNames(tool.server),
  };
  if (block.input === null || typeof block.input !== 'object' || Array.isArray(block.input)) {
    return {
      ...block,
      plan: {
        ok: false,
        errorText: toolUseError(`InputValidationError: ${block.name} takes an object of arguments`),
        rules,
      },
    };
  }
  const shown = JSON.stringify(block.input);
  const summary = `${block.name} ${shown.length > SUMMARY_ARGUMENTS_CHARS ? `${shown.slice(0, SUMMARY_ARGUMENTS_CHARS)}…` : shown}`;
  // Not concurrency-safe: nothing says what a server's tool changes, so calls run one at a time, in order.
  return { ...block, plan: { ok: true, concurrencySafe: false, summary, rules } };
}
