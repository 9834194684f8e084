/**
 * WebFetch as a real model uses it, on a worker that offers it (AGENT_WEB_FETCH=1): a page of a
 * local HTTP server the session's allowed domains name is fetched under the session's network
 * rules (bubblewrap's filtered network where it runs), its prompt answered by the small model; a
 * host the session's commands could not reach is refused; a session without network is offered
 * neither web tool.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { Harness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

let harness: Harness;
let site: Server;
let port: number;

beforeAll(async () => {
  site = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<title>Release notes</title><p>Version 2 is out.</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
  harness = await Harness.start();
  await harness.startWorker({ webFetch: true });
});
afterAll(async () => {
  await harness?.stop();
  await new Promise((resolve) => site.close(resolve));
});

const results = (request: RecordedRequest) =>
  Object.fromEntries(
    lastToolResults(request).map((block) => [
      block.tool_use_id,
      { text: toolResultText(block), isError: block.is_error === true },
    ]),
  );
const toolNames = (request: RecordedRequest) => (request.body.tools ?? []).map((tool) => tool.name);
const isSmallModel = (request: RecordedRequest) => request.body.model === 'claude-haiku-5-5';

test("a page on the session's allowed domains is fetched and the prompt answered by the small model; another host is refused", async () => {
  const session = byTurn([
    reply([
      toolUse('WebFetch', { url: `http://127.0.0.1:${port}/notes`, prompt: 'Which version is out?' }, 'toolu_fetch'),
      toolUse('WebFetch', { url: 'http://127.0.0.1:9/notes', prompt: 'Anything?' }, 'toolu_refused'),
    ]),
    reply([text('Version 2 is out.')]),
  ]);
  harness.fake.handler = (request) =>
    isSmallModel(request) ? reply([text('The page says version 2.')]) : session(request);
  const handle = await harness.start({
    prompt: 'Which version is out?',
    workdir: makeRepo({}),
    toolSummaries: false,
    permissionMode: 'ask',
    allowRules: ['WebFetch(domain:127.0.0.1)'],
    allowedDomains: [`127.0.0.1:${port}`],
  });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');

  const requests = harness.fake.requests.filter((request) => !isSmallModel(request));
  expect(toolNames(requests[0]!)).toEqual(expect.arrayContaining(['WebFetch', 'WebSearch']));
  const turn1 = results(requests[1]!);
  expect(turn1.toolu_fetch).toEqual({ text: 'The page says version 2.', isError: false });
  expect(turn1.toolu_refused!.isError).toBe(true);
  expect(turn1.toolu_refused!.text).toContain("The session's network rules do not let it reach 127.0.0.1:9");
  // The small model got the page as Markdown, with the prompt.
  const asked = JSON.stringify(harness.fake.requests.find(isSmallModel)!.body.messages);
  expect(asked).toContain('# Release notes\\n\\nVersion 2 is out.');
  expect(asked).toContain('Which version is out?');
});

test('a session without network is offered neither WebFetch nor WebSearch', async () => {
  harness.fake.handler = byTurn([reply([text('Offline.')])]);
  const handle = await harness.start({ prompt: 'Look it up', workdir: makeRepo({}), network: 'none' });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  const names = toolNames(harness.fake.requests.at(-1)!);
  expect(names).toContain('Read');
  expect(names).not.toContain('WebFetch');
  expect(names).not.toContain('WebSearch');
});
