import { McpCatalog } from '../../../../src/activities/mcp/mcp-catalog';
import { definitionsOf } from '../../../../src/activities/mcp/mcp-activities';
import type { StoredMcpCatalog } from '../../../../src/shared/mcp';
import { LocalContentStore, putJson } from '../../../../src/store/content-store';
import { scratchDir } from '../../../support/paths';

const catalog = McpCatalog.of(
  definitionsOf('tracker', [
    {
      name: 'lookup',
      description: 'Looks an issue up',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
    { name: 'search.all', inputSchema: { type: 'object' } },
  ]),
);

test("a server's tools are offered with its schemas, under mcp__ names", () => {
  expect(catalog.apiDefinitions()).toEqual([
    {
      name: 'mcp__tracker__lookup',
      description: 'Looks an issue up',
      input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
    {
      name: 'mcp__tracker__search_all',
      description: 'search.all (MCP server tracker)',
      input_schema: { type: 'object' },
    },
  ]);
});

test('a call is planned with the rules the workflow follows: MCP target, approval, the rules that approve it', () => {
  const planned = catalog.plan({ id: 'toolu_1', name: 'mcp__tracker__search_all', input: { q: 'flaky' } });
  expect(planned).toEqual({
    id: 'toolu_1',
    name: 'mcp__tracker__search_all',
    input: { q: 'flaky' },
    plan: {
      ok: true,
      concurrencySafe: false,
      summary: 'mcp__tracker__search_all {"q":"flaky"}',
      rules: {
        needsApproval: true,
        subject: '',
        mcp: { server: 'tracker', tool: 'search.all' },
        allowedBy: ['mcp__tracker', 'mcp__tracker__*'],
      },
    },
  });
  expect(catalog.plan({ id: 'toolu_2', name: 'mcp__tracker__lookup', input: 'BUILD-7' })?.plan).toMatchObject({
    ok: false,
    errorText: expect.stringContaining('InputValidationError'),
  });
  expect(catalog.plan({ id: 'toolu_3', name: 'Read', input: {} })).toBeUndefined();
});

test('the stored catalog names the servers that offer resources; an older one (a bare array) names none', async () => {
  const store = new LocalContentStore(scratchDir('mcp-catalog'));
  const tools = definitionsOf('docs', [{ name: 'search', inputSchema: { type: 'object' } }]);
  const older = await McpCatalog.load(store, await putJson(store, tools));
  expect(older?.resourceServers).toEqual([]);
  const stored: StoredMcpCatalog = { tools, resourceServers: ['docs'] };
  const current = await McpCatalog.load(store, await putJson(store, stored));
  expect(current?.resourceServers).toEqual(['docs']);
  expect(current?.apiDefinitions().map((tool) => tool.name)).toEqual(['mcp__docs__search']);
});
