/**
 * ListMcpResourcesTool and ReadMcpResourceTool against a real stdio MCP server (the SDK's server
 * classes, bundled, started unconfined here; the integration test runs it in bubblewrap), through
 * the pool the session's MCP calls use.
 */
import { McpPool } from '../../../../src/activities/mcp/mcp-pool';
import { mcpResourceAccess } from '../../../../src/activities/mcp/mcp-resources';
import { listMcpResourcesTool, readMcpResourceTool } from '../../../../src/activities/tools/mcp-resource-tools';
import { TOOLS } from '../../../../src/activities/tools/registry';
import { ToolError } from '../../../../src/activities/tools/tool';
import { unconfined } from '../../../../src/sandbox/command-sandbox';
import { mcpStdioServerBundle } from '../../../support/mcp-servers';
import { scratchDir } from '../../../support/paths';
import { toolContext } from '../../../support/tool-context';

jest.setTimeout(30_000);

const workdir = scratchDir('mcp-resources');
const notes = { command: process.execPath, args: [mcpStdioServerBundle(workdir)] };
// A server without resources: the same server would offer them, so this one is a server that fails to start.
const servers = { notes, broken: { command: 'definitely-not-a-command' } };
const pool = new McpPool(unconfined());
afterAll(() => pool.closeSession('session-1'));

function context() {
  const signal = new AbortController().signal;
  const mcp = mcpResourceAccess(pool, { sessionId: 'session-1', servers, place: { workdir } }, signal);
  return toolContext(workdir, { mcp, signal });
}

test("ListMcpResourcesTool lists every server's resources as Claude Code shapes them, and names servers it could not list", async () => {
  const output = await listMcpResourcesTool.execute({}, context());
  const [json, note] = output.text.split('\n\n(');
  expect(JSON.parse(json!)).toEqual([
    {
      uri: 'notes://readme',
      name: 'readme',
      mimeType: 'text/markdown',
      description: 'How the project is built',
      server: 'notes',
    },
    { uri: 'notes://pixel.png', name: 'pixel', mimeType: 'image/png', server: 'notes' },
  ]);
  expect(note).toContain('broken');
  expect(JSON.parse((await listMcpResourcesTool.execute({ server: 'notes' }, context())).text)).toHaveLength(2);
});

test('an unknown server is an error naming the servers that have resources', async () => {
  await expect(listMcpResourcesTool.execute({ server: 'nope' }, context())).rejects.toThrow(
    new ToolError('Server "nope" not found. Servers with resources: notes.'),
  );
  await expect(readMcpResourceTool.execute({ server: 'nope', uri: 'notes://readme' }, context())).rejects.toThrow(
    'Servers with resources: notes',
  );
});

test('ReadMcpResourceTool returns text as it is, and an image blob for the model to see', async () => {
  const text = await readMcpResourceTool.execute({ server: 'notes', uri: 'notes://readme' }, context());
  expect(JSON.parse(text.text)).toEqual({
    contents: [{ uri: 'notes://readme', mimeType: 'text/markdown', text: '# Notes\n\nBuild with `make all`.' }],
  });
  const image = await readMcpResourceTool.execute({ server: 'notes', uri: 'notes://pixel.png' }, context());
  expect(JSON.parse(image.text).contents[0].text).toMatch(/^\[image, \d+ bytes: shown to you/);
  expect(image.media).toEqual([expect.objectContaining({ kind: 'image', mediaType: 'image/png' })]);
  await expect(readMcpResourceTool.execute({ server: 'notes', uri: 'notes://missing' }, context())).rejects.toThrow(
    /could not read notes:\/\/missing/,
  );
});

test('they are offered only when a server offers resources, read-only, any number at once', () => {
  const allowed = TOOLS.tools.map((tool) => tool.name);
  const offer = { webFetch: false, webSearch: false, skills: false };
  expect(TOOLS.offeredNames(allowed, { ...offer, mcpResources: false })).not.toContain('ListMcpResourcesTool');
  expect(TOOLS.offeredNames(allowed, { ...offer, mcpResources: true })).toEqual(
    expect.arrayContaining(['ListMcpResourcesTool', 'ReadMcpResourceTool']),
  );
  expect(readMcpResourceTool.needsApproval).toBe(false);
  expect(readMcpResourceTool.isConcurrencySafe({ server: 'notes', uri: 'x' })).toBe(true);
});
