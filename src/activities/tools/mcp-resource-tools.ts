/**
 * ListMcpResourcesTool and ReadMcpResourceTool, as Claude Code names and shapes them: the
 * resources of the session's MCP servers (docs pages, schemas, files a server exposes by URI).
 * Offered only when one of the session's servers offers resources; read-only, so no approval and
 * any number at once. The servers are reached through the session's pool of MCP connections
 * (src/activities/mcp/mcp-resources.ts), on the session's host.
 */
import { z } from 'zod';
import { McpResourceError, type McpResourceAccess } from '../mcp/mcp-resources';
import { defineTool, ToolError, type ToolOutput } from './tool';

function resourcesOf(mcp: McpResourceAccess | undefined): McpResourceAccess {
  if (!mcp) throw new ToolError('This session has no MCP servers.');
  return mcp;
}

/** A refusal of the servers' is the model's to act on. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpResourceError) throw new ToolError(error.message);
    throw error;
  }
}

export const listMcpResourcesTool = defineTool({
  name: 'ListMcpResourcesTool',
  description: [
    'Lists available resources from configured MCP servers.',
    "Each resource object includes a 'server' field indicating which server it's from.",
    '',
    'Usage examples:',
    '- List all resources from all servers: `listMcpResources`',
    '- List resources from a specific server: `listMcpResources({ server: "myserver" })`',
  ].join('\n'),
  schema: z
    .object({
      server: z.string().optional().describe('Optional server name to filter resources by'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  readsMcpServers: true,
  offered: (offer) => offer.mcpResources,
  subject: (input) => input.server ?? '',
  summarize: (input) => `ListMcpResources${input.server ? ` ${input.server}` : ''}`,
  async execute(input, context): Promise<ToolOutput> {
    const { resources, failed } = await refusing(() => resourcesOf(context.mcp).list(input.server));
    const note = failed.length
      ? `\n\n(Not listed: the MCP server${failed.length > 1 ? 's' : ''} ${failed.join(', ')}.)`
      : '';
    if (resources.length === 0)
      return { text: `No resources found. MCP servers may still provide tools even if they have no resources.${note}` };
    return { text: `${JSON.stringify(resources)}${note}` };
  },
});

export const readMcpResourceTool = defineTool({
  name: 'ReadMcpResourceTool',
  description: [
    'Reads a specific resource from an MCP server, identified by server name and resource URI.',
    '',
    'Parameters:',
    '- server (required): The name of the MCP server from which to read the resource',
    '- uri (required): The URI of the resource to read',
  ].join('\n'),
  schema: z
    .object({
      server: z.string().describe('The MCP server name'),
      uri: z.string().describe('The resource URI to read'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  readsMcpServers: true,
  offered: (offer) => offer.mcpResources,
  subject: (input) => `${input.server} ${input.uri}`,
  summarize: (input) => `ReadMcpResource ${input.server} ${input.uri}`,
  async execute(input, context): Promise<ToolOutput> {
    const { contents, images } = await refusing(() => resourcesOf(context.mcp).read(input.server, input.uri));
    return {
      text: JSON.stringify({ contents }),
      ...(images.length
        ? {
            media: images.map((image) => ({
              kind: 'image' as const,
              mediaType: image.mediaType,
              base64: image.base64,
              estimatedChars: 6_000,
            })),
          }
        : {}),
    };
  },
});
