/**
 * The resources of a session's MCP servers (MCP `resources/list` and `resources/read`), for the
 * tools ListMcpResourcesTool and ReadMcpResourceTool: through the same pool of connections as the
 * session's MCP tool calls, on the session's host. Reading a resource changes nothing, so a
 * retried call simply reads again.
 */
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_RESULT_MAX_CHARS } from '../../shared/limits';
import type { McpServers } from '../../shared/mcp';
import type { McpConnection, McpPlace, McpPool } from './mcp-pool';

/** Claude Code's ListMcpResourcesOutput entry. */
export interface ListedMcpResource {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
  server: string;
}

/** Claude Code's ReadMcpResourceOutput entry; a binary blob is described (an image also shown to the model). */
export interface ReadMcpResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
}

export interface ReadMcpResourceResult {
  contents: ReadMcpResourceContent[];
  /** Images among the blobs, for the model to see. */
  images: { mediaType: string; base64: string }[];
}

/** What the resource tools use of the session's MCP servers. */
export interface McpResourceAccess {
  /** Every resource of `server`, or of every server that offers resources; `failed` names servers that could not be listed. */
  list(server?: string): Promise<{ resources: ListedMcpResource[]; failed: string[] }>;
  read(server: string, uri: string): Promise<ReadMcpResourceResult>;
}

/** A request of the model's that the servers cannot answer as asked: an `is_error` result. */
export class McpResourceError extends Error {}

/** How long one listing or read may take once the server is up. */
const RESOURCE_REQUEST_TIMEOUT_MS = 60_000;
/** Listing stops after this many resources (a server may have a whole database of them). */
const MAX_LISTED_RESOURCES = 1_000;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export function mcpResourceAccess(
  pool: McpPool,
  session: { sessionId: string; servers: McpServers; place: McpPlace },
  signal: AbortSignal,
): McpResourceAccess {
  return new SessionResources(pool, session, signal);
}

class SessionResources implements McpResourceAccess {
  private readonly options: { timeout: number; signal: AbortSignal };

  constructor(
    private readonly pool: McpPool,
    private readonly session: { sessionId: string; servers: McpServers; place: McpPlace },
    private readonly signal: AbortSignal,
  ) {
    this.options = { timeout: RESOURCE_REQUEST_TIMEOUT_MS, signal };
  }

  async list(server?: string): Promise<{ resources: ListedMcpResource[]; failed: string[] }> {
    if (server !== undefined) {
      const connection = await this.connectWithResources(server);
      return { resources: await listAll(connection, server, this.options), failed: [] };
    }
    const { names, failed } = await this.resourceServers();
    const resources: ListedMcpResource[] = [];
    for (const name of names) {
      try {
        resources.push(...(await listAll((await this.connect(name))!, name, this.options)));
      } catch (error) {
        if (this.signal.aborted) throw error;
        failed.push(`${name} (${(error as Error).message.slice(0, 300)})`);
      }
    }
    return { resources, failed };
  }

  async read(server: string, uri: string): Promise<ReadMcpResourceResult> {
    const connection = await this.connectWithResources(server);
    let result: ReadResourceResult;
    try {
      result = await connection.client.readResource({ uri }, this.options);
    } catch (error) {
      if (this.signal.aborted) throw error;
      throw new McpResourceError(`The MCP server "${server}" could not read ${uri}: ${(error as Error).message}`);
    }
    return contentsOf(result);
  }

  private async connect(name: string): Promise<McpConnection | undefined> {
    const config = this.session.servers[name];
    if (!config) return undefined;
    return this.pool.connect(this.session.sessionId, name, config, this.session.place);
  }

  /** The servers that offer resources (started when they are not running), and those that could not start. */
  private async resourceServers(): Promise<{ names: string[]; failed: string[] }> {
    const names: string[] = [];
    const failed: string[] = [];
    for (const name of Object.keys(this.session.servers)) {
      try {
        if ((await this.connect(name))?.client.getServerCapabilities()?.resources) names.push(name);
      } catch (error) {
        failed.push(`${name} (${(error as Error).message.slice(0, 300)})`);
      }
    }
    return { names, failed };
  }

  /** The server's connection, or an error naming the servers that do offer resources. */
  private async connectWithResources(name: string): Promise<McpConnection> {
    let connection: McpConnection | undefined;
    try {
      connection = await this.connect(name);
    } catch (error) {
      throw new McpResourceError(`The MCP server "${name}" could not be started: ${(error as Error).message}`);
    }
    if (connection?.client.getServerCapabilities()?.resources) return connection;
    const { names } = await this.resourceServers();
    const offering = names.length
      ? `Servers with resources: ${names.join(', ')}`
      : 'No server of this session offers resources';
    throw new McpResourceError(
      `${connection ? `The MCP server "${name}" offers no resources` : `Server "${name}" not found`}. ${offering}.`,
    );
  }
}

async function listAll(
  connection: McpConnection,
  server: string,
  options: { timeout: number; signal: AbortSignal },
): Promise<ListedMcpResource[]> {
  const listed: ListedMcpResource[] = [];
  let cursor: string | undefined;
  do {
    const page = await connection.client.listResources(cursor ? { cursor } : {}, options);
    listed.push(...page.resources.map((resource) => entryOf(resource, server)));
    cursor = page.nextCursor;
  } while (cursor && listed.length < MAX_LISTED_RESOURCES);
  return listed.slice(0, MAX_LISTED_RESOURCES);
}

function entryOf(resource: Resource, server: string): ListedMcpResource {
  return {
    uri: resource.uri,
    name: resource.name,
    ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
    ...(resource.description ? { description: resource.description.slice(0, 2_000) } : {}),
    server,
  };
}

/** Text as it is (capped as a tool result is); a binary blob described, and shown to the model when it is an image. */
export function contentsOf(result: ReadResourceResult): ReadMcpResourceResult {
  const images: ReadMcpResourceResult['images'] = [];
  const contents = result.contents.map((content): ReadMcpResourceContent => {
    const head = { uri: content.uri, ...(content.mimeType ? { mimeType: content.mimeType } : {}) };
    if ('text' in content && typeof content.text === 'string') {
      const text = content.text;
      return {
        ...head,
        text:
          text.length > TOOL_RESULT_MAX_CHARS
            ? `${text.slice(0, TOOL_RESULT_MAX_CHARS)}\n\n... [${text.length - TOOL_RESULT_MAX_CHARS} characters cut]`
            : text,
      };
    }
    const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : '';
    const bytes = Math.floor((blob.length * 3) / 4);
    if (content.mimeType && IMAGE_TYPES.has(content.mimeType) && blob) {
      images.push({ mediaType: content.mimeType, base64: blob });
      return { ...head, text: `[image, ${bytes} bytes: shown to you with this result]` };
    }
    return {
      ...head,
      text: `[binary content, ${bytes} bytes${content.mimeType ? ` of ${content.mimeType}` : ''}: not shown]`,
    };
  });
  return { contents, images };
}
