/**
 * WebFetch and WebSearch as tools: a local HTTP server's pages through the session's network
 * rules, the prompt applied by the small model of the fake Anthropic API, pages read on with
 * `offset`, and the search made as a server-tool request of the small model.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ModelApi } from '../../../../src/activities/model/anthropic';
import { fetchUrl, WEB_FETCH_CHUNK_CHARS, webFetchTool } from '../../../../src/activities/tools/web-fetch';
import { webSearchTool } from '../../../../src/activities/tools/web-search';
import { ToolError, type ToolOutput } from '../../../../src/activities/tools/tool';
import { webAccessFor } from '../../../../src/activities/web/web-access';
import { unconfined } from '../../../../src/sandbox/command-sandbox';
import { FakeAnthropicServer, reply, text } from '../../../support/fake-anthropic';
import { scratchDir } from '../../../support/paths';
import { toolContext } from '../../../support/tool-context';

let site: Server;
let base: string;
let fake: FakeAnthropicServer;
const LONG = 'word '.repeat(30_000);

beforeAll(async () => {
  site = createServer((request, response) => {
    if (request.url === '/long') return void response.writeHead(200, { 'content-type': 'text/plain' }).end(LONG);
    if (request.url === '/missing') return void response.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    if (request.url === '/binary')
      return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(10));
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<title>Release notes</title><p>Version 2 is out.</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  fake = await FakeAnthropicServer.start(() => reply([text('Version 2.')]));
});
afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await fake.close();
});

const workdir = scratchDir('web-fetch');
function run(tool: typeof webFetchTool | typeof webSearchTool, input: object, network?: 'none'): Promise<ToolOutput> {
  const api = ModelApi.fromSettings({ apiKey: 'test-key', baseURL: fake.url });
  const web = webAccessFor(
    { api, smallModel: 'claude-haiku-5-5', sandbox: unconfined() },
    network ? { network } : undefined,
  );
  const context = toolContext(workdir, web ? { web } : {});
  return new MockActivityEnvironment().run(() => tool.execute(input as never, context));
}

test('http is upgraded to https except for addresses and localhost; other schemes and credentials are refused', () => {
  expect(fetchUrl('http://example.com/a?b=1').href).toBe('https://example.com/a?b=1');
  expect(fetchUrl('http://127.0.0.1:8080/').protocol).toBe('http:');
  expect(fetchUrl('http://localhost/').protocol).toBe('http:');
  expect(() => fetchUrl('file:///etc/passwd')).toThrow(ToolError);
  expect(() => fetchUrl('https://user:pw@example.com/')).toThrow(ToolError);
  expect(() => fetchUrl('not a url')).toThrow('Invalid URL');
});

test("the prompt is applied to the page's Markdown by the small model", async () => {
  const output = await run(webFetchTool, { url: `${base}/notes`, prompt: 'Which version?' });
  expect(output.text).toBe('Version 2.');
  const asked = fake.requests.at(-1)!;
  expect(asked.body.model).toBe('claude-haiku-5-5');
  expect(JSON.stringify(asked.body.messages)).toContain('# Release notes\\n\\nVersion 2 is out.');
  expect(JSON.stringify(asked.body.messages)).toContain('Which version?');
});

test('a long page is read in parts: the result says which offset reads on', async () => {
  const first = await run(webFetchTool, { url: `${base}/long`, prompt: 'Summarise' });
  expect(first.text).toContain(
    `[Characters 0-${WEB_FETCH_CHUNK_CHARS} of ${LONG.length}. To read on, call WebFetch again with offset: ${WEB_FETCH_CHUNK_CHARS}]`,
  );
  const rest = await run(webFetchTool, { url: `${base}/long`, prompt: 'Summarise', offset: WEB_FETCH_CHUNK_CHARS });
  expect(rest.text).not.toContain('To read on');
  await expect(run(webFetchTool, { url: `${base}/long`, prompt: 'x', offset: 10 ** 7 })).rejects.toThrow(
    'past the end',
  );
});

test('errors the model can act on: a 404, binary content, a session without network', async () => {
  await expect(run(webFetchTool, { url: `${base}/missing`, prompt: 'x' })).rejects.toThrow(/answered 404/);
  await expect(run(webFetchTool, { url: `${base}/binary`, prompt: 'x' })).rejects.toThrow(/application\/octet-stream/);
  await expect(run(webFetchTool, { url: `${base}/notes`, prompt: 'x' }, 'none')).rejects.toThrow(/not available here/);
});

test('WebSearch asks the small model with the server-side web_search tool and its domain filters', async () => {
  const output = await run(webSearchTool, { query: 'durable agents', allowed_domains: ['temporal.io'] });
  expect(output.text).toContain('Web search results for query: "durable agents"');
  expect(output.text).toContain('Version 2.');
  const asked = fake.requests.at(-1)!;
  expect(asked.body.tools).toEqual([
    { type: 'web_search_20250305', name: 'web_search', max_uses: 8, allowed_domains: ['temporal.io'] },
  ]);
  await expect(
    run(webSearchTool, { query: 'x y', allowed_domains: ['a.com'], blocked_domains: ['b.com'] }),
  ).rejects.toThrow('not both');
});
