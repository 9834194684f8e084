import { checkAgentInput } from '../../../src/shared/input';
import {
  describeMcpServer,
  longestMcpStartupMs,
  MCP_STARTUP_TIMEOUT_MS,
  mcpStartupTimeoutMs,
  mcpJsonSchema,
  mcpRuleNames,
  mcpServersSchema,
  mcpStdioServerSchema,
  mcpToolName,
  mergeMcpServers,
} from '../../../src/shared/mcp';

describe('MCP tool names', () => {
  test('mcp__<server>__<tool>, with what the API refuses replaced and cut to 64 characters', () => {
    expect(mcpToolName('tracker', 'lookup')).toBe('mcp__tracker__lookup');
    expect(mcpToolName('docs', 'search.pages/v2')).toBe('mcp__docs__search_pages_v2');
    expect(mcpToolName('db', 'x'.repeat(100))).toHaveLength(64);
    expect(mcpRuleNames('tracker')).toEqual(['mcp__tracker', 'mcp__tracker__*']);
  });
});

describe('MCP server configuration', () => {
  test("Claude Code's stdio and HTTP forms", () => {
    const servers = {
      files: { command: 'node', args: ['server.js'], env: { API_URL: 'http://x' } },
      typed: { type: 'stdio', command: 'uvx', args: ['mcp-server-git'] },
      tracker: { type: 'http', url: 'https://tracker.example/mcp', headers: { Authorization: 'Bearer t' } },
    };
    expect(mcpServersSchema.parse(servers)).toEqual(servers);
    expect(mcpJsonSchema.parse({ mcpServers: servers, other: 1 }).mcpServers).toEqual(servers);
    expect(describeMcpServer(servers.files)).toBe('node server.js');
    expect(describeMcpServer(servers.tracker as never)).toBe('https://tracker.example/mcp');
  });

  test('invalid servers are refused, naming the field', () => {
    const problems = (servers: unknown) => {
      const check = checkAgentInput({ prompt: 'p', workdir: '/abs', mcpServers: servers });
      return check.ok ? 'ok' : check.message;
    };
    expect(problems({ 'bad name': { command: 'x' } })).toContain(
      'mcpServers.bad name: a server name must be letters, digits, _ and - only',
    );
    expect(problems({ a__b: { command: 'x' } })).toContain('mcpServers.a__b: a server name must not contain "__"');
    expect(problems({ files: { command: '' } })).toContain('mcpServers.files');
    expect(problems({ web: { type: 'http', url: 'ftp://x' } })).toContain('mcpServers.web');
    expect(problems({ files: { command: 'x', env: { 'BAD-NAME': '1' } } })).toContain('mcpServers.files');
    expect(problems({ files: { command: 'x', cwd: '/' } })).toContain('unknown field(s): mcpServers.files.cwd');
    expect(problems({ files: { command: 'node' } })).toBe('ok');
  });

  test('startupTimeoutMs: whole milliseconds from 1000 to 10 minutes, on either kind of server', () => {
    const problems = (servers: unknown) => {
      const check = checkAgentInput({ prompt: 'p', workdir: '/abs', mcpServers: servers });
      return check.ok ? 'ok' : check.message;
    };
    expect(problems({ files: { command: 'npx', startupTimeoutMs: 90_000 } })).toBe('ok');
    expect(problems({ web: { type: 'http', url: 'https://x/mcp', startupTimeoutMs: 5_000 } })).toBe('ok');
    for (const bad of ['30s', 10, 1_500.5, 3_600_000]) {
      expect(problems({ files: { command: 'x', startupTimeoutMs: bad } })).toContain('mcpServers.files');
    }
    const alone = (value: unknown) =>
      mcpStdioServerSchema.safeParse({ command: 'x', startupTimeoutMs: value }).error?.message;
    expect(alone(10)).toContain('must be at least 1000');
    expect(alone(1_500.5)).toContain('whole number');
    expect(alone(3_600_000)).toContain('at most 600000');
    const servers = { a: { command: 'x' }, b: { command: 'y', startupTimeoutMs: 90_000 } };
    expect(mcpStartupTimeoutMs(servers.a)).toBe(MCP_STARTUP_TIMEOUT_MS);
    expect(longestMcpStartupMs(servers)).toBe(90_000);
  });

  test('the input carries its servers; input servers win over the repository’s of the same name', () => {
    const check = checkAgentInput({ prompt: 'p', workdir: '/abs', mcpServers: { files: { command: 'node' } } });
    expect(check.ok && check.input.mcpServers).toEqual({ files: { command: 'node' } });
    expect(
      mergeMcpServers({ files: { command: 'repo' }, git: { command: 'git-mcp' } }, { files: { command: 'input' } }),
    ).toEqual({
      files: { command: 'input' },
      git: { command: 'git-mcp' },
    });
  });

  test('allow rules may name MCP tools and servers, still nothing else with underscores', () => {
    const rules = (allowRules: string[]) => checkAgentInput({ prompt: 'p', workdir: '/abs', allowRules }).ok;
    expect(rules(['mcp__tracker__lookup', 'mcp__tracker', 'mcp__tracker__*', 'Bash(npm test)', 'Read'])).toBe(true);
    expect(rules(['my_tool'])).toBe(false);
    expect(rules(['mcp__'])).toBe(false);
    expect(rules(['mcp__a b'])).toBe(false);
  });
});
