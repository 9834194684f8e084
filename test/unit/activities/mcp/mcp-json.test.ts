import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRepoMcp as readOpenRepoMcp } from '../../../../src/activities/mcp/mcp-json';
import { settingsApproval } from '../../../../src/activities/tools/settings-guard';
import { scratchDir } from '../../../support/paths';
import { Workdir } from '../../../../src/workdir/workdir';

const readRepoMcp = (workdir: string, trusted: boolean) =>
  Workdir.using(workdir, (opened) => readOpenRepoMcp(opened, trusted));

function repoWith(mcpJson?: string): string {
  const dir = scratchDir('mcp-json');
  if (mcpJson !== undefined) writeFileSync(join(dir, '.mcp.json'), mcpJson);
  return dir;
}

const servers = {
  mcpServers: {
    git: { command: 'git-mcp', args: ['--repo', '.'] },
    docs: { type: 'http', url: 'https://docs.example/mcp' },
  },
};

test('trusted, its servers are used; untrusted, it is only noted', async () => {
  const dir = repoWith(JSON.stringify(servers));
  expect(await readRepoMcp(dir, true)).toEqual({ repoMcpServers: servers.mcpServers });
  expect(await readRepoMcp(dir, false)).toEqual({ skippedMcpJson: '.mcp.json (2 servers: git, docs)' });
  expect(await readRepoMcp(repoWith(), true)).toEqual({});
  expect(await readRepoMcp(repoWith('{"mcpServers":{}}'), false)).toEqual({});
});

test('a trusted invalid file fails the session naming the field, never its values; an untrusted one cannot', async () => {
  const dir = repoWith(JSON.stringify({ mcpServers: { git: { args: ['secret-token-123'] } } }));
  const failure = await readRepoMcp(dir, true).catch((error: Error) => error);
  expect(failure).toMatchObject({ message: expect.stringContaining('.mcp.json: mcpServers.git'), nonRetryable: true });
  expect((failure as Error).message).not.toContain('secret-token-123');
  expect(await readRepoMcp(repoWith('not json'), false)).toEqual({ skippedMcpJson: '.mcp.json (not valid JSON)' });
  await expect(readRepoMcp(repoWith('not json'), true)).rejects.toThrow('.mcp.json is not valid JSON');
});

test(".mcp.json, like the hooks' settings, changes only with a person's approval", () => {
  const dir = repoWith('{}');
  expect(settingsApproval({}, { workdir: dir, filePath: join(dir, '.mcp.json') })).toEqual({
    alwaysAsk: 'it changes .mcp.json, whose MCP servers run commands in later sessions',
  });
  expect(settingsApproval({}, { workdir: dir, filePath: join(dir, 'mcp.json') })).toEqual({});
});
