import { McpCatalog } from '../../../../src/activities/mcp/mcp-catalog';
import { definitionsOf } from '../../../../src/activities/mcp/mcp-activities';

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
