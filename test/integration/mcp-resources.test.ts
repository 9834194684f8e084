/**
 * MCP resources as a real model uses them: a stdio server that offers resources (the SDK's server
 * classes, bundled into the workdir, run in the session's sandbox) and an HTTP server that offers
 * none; the scripted model lists and reads them with Claude Code's ListMcpResourcesTool and
 * ReadMcpResourceTool, without approval in "ask" mode. A session whose servers offer no
 * resources is not offered the tools.
 */
import type { AgentResult } from '../../src/shared/contract';
import {
  byTurn,
  lastToolResults,
  type RecordedRequest,
  reply,
  text,
  toolResultText,
  toolUse,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';
import { McpHttpServer, mcpStdioServerBundle } from '../support/mcp-servers';

jest.setTimeout(120_000);

const harness = fileHarness();
let tracker: McpHttpServer;

beforeAll(async () => {
  tracker = await McpHttpServer.start();
});
afterAll(async () => {
  await tracker.close();
});

const results = (request: RecordedRequest) =>
  Object.fromEntries(
    lastToolResults(request).map((block) => [
      block.tool_use_id,
      { text: toolResultText(block), isError: block.is_error === true },
    ]),
  );
const toolNames = (request: RecordedRequest) => (request.body.tools ?? []).map((tool) => tool.name);

test('the resources of the servers that offer them are listed and read, with no approval', async () => {
  const workdir = makeRepo({});
  const server = mcpStdioServerBundle(workdir);
  harness.fake.handler = byTurn([
    reply([
      toolUse('ListMcpResourcesTool', {}, 'toolu_list'),
      toolUse('ReadMcpResourceTool', { server: 'files', uri: 'notes://readme' }, 'toolu_read'),
      toolUse('ReadMcpResourceTool', { server: 'tracker', uri: 'notes://readme' }, 'toolu_none'),
    ]),
    reply([text('The project builds with make all.')]),
  ]);
  const handle = await harness.start({
    prompt: 'How is this built?',
    workdir,
    toolSummaries: false,
    permissionMode: 'ask',
    mcpServers: {
      files: { command: 'node', args: [server] },
      tracker: { type: 'http', url: tracker.url },
    },
  });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');

  const requests = harness.fake.requests.filter((request) => request.body.tools?.length);
  expect(requests).toHaveLength(2);
  expect(toolNames(requests[0]!)).toEqual(
    expect.arrayContaining(['ListMcpResourcesTool', 'ReadMcpResourceTool', 'mcp__files__echo']),
  );
  const turn1 = results(requests[1]!);
  expect(JSON.parse(turn1.toolu_list!.text)).toEqual([
    {
      uri: 'notes://readme',
      name: 'readme',
      mimeType: 'text/markdown',
      description: 'How the project is built',
      server: 'files',
    },
    { uri: 'notes://pixel.png', name: 'pixel', mimeType: 'image/png', server: 'files' },
  ]);
  expect(JSON.parse(turn1.toolu_read!.text)).toEqual({
    contents: [{ uri: 'notes://readme', mimeType: 'text/markdown', text: '# Notes\n\nBuild with `make all`.' }],
  });
  expect(turn1.toolu_none).toEqual({
    text: expect.stringContaining('The MCP server "tracker" offers no resources. Servers with resources: files.'),
    isError: true,
  });
});

test('a session whose servers offer no resources is not offered the resource tools', async () => {
  harness.fake.handler = byTurn([reply([text('Nothing to read.')])]);
  const handle = await harness.start({
    prompt: 'Anything to read?',
    workdir: makeRepo({}),
    toolSummaries: false,
    mcpServers: { tracker: { type: 'http', url: tracker.url } },
  });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  const names = toolNames(harness.fake.requests.at(-1)!);
  expect(names).toContain('mcp__tracker__lookup');
  expect(names).not.toContain('ListMcpResourcesTool');
  expect(names).not.toContain('ReadMcpResourceTool');
});
