import { binOf, npxPackageCommand, packageName } from '../../../src/sandbox/npx-command';
import { mcpPackageDir } from '../../../src/worker-config';

describe('npx servers the worker installs itself', () => {
  test('npx [-y|--yes] [--] <registry package> [args…]', () => {
    expect(npxPackageCommand('npx', ['-y', '@modelcontextprotocol/server-filesystem', '/work'])).toEqual({
      spec: '@modelcontextprotocol/server-filesystem',
      name: '@modelcontextprotocol/server-filesystem',
      args: ['/work'],
    });
    expect(npxPackageCommand('npx', ['--yes', '--', 'mcp-server-git@1.2.3', '--repo', '.'])).toEqual({
      spec: 'mcp-server-git@1.2.3',
      name: 'mcp-server-git',
      args: ['--repo', '.'],
    });
    expect(npxPackageCommand('npx', ['@scope/tool@latest'])?.name).toBe('@scope/tool');
  });

  test('anything else is left to npx as configured', () => {
    expect(npxPackageCommand('node', ['server.js'])).toBeUndefined();
    expect(npxPackageCommand('/usr/bin/npx', ['-y', 'tool'])).toBeUndefined();
    expect(npxPackageCommand('npx', ['-y'])).toBeUndefined();
    expect(npxPackageCommand('npx', ['--registry=https://evil.example', 'tool'])).toBeUndefined();
    expect(npxPackageCommand('npx', ['-p', 'tool', 'tool-bin'])).toBeUndefined();
    for (const spec of [
      'file:../tool.tgz',
      'github:me/tool',
      'https://x/tool.tgz',
      '../tool',
      'Tool',
      'tool@1 || $(id)',
      'a/b',
    ]) {
      expect(packageName(spec)).toBeUndefined();
    }
  });

  test("the bin is npx's: the only one, else the one named as the package; never a path", () => {
    expect(binOf('@scope/tool', 'dist/cli.js')).toBe('tool');
    expect(binOf('tool', { 'tool-server': 'x.js' })).toBe('tool-server');
    expect(binOf('tool', { tool: 'a.js', other: 'b.js' })).toBe('tool');
    expect(binOf('tool', { a: 'a.js', b: 'b.js' })).toBeUndefined();
    expect(binOf('tool', { '../../etc/passwd': 'x' })).toBeUndefined();
    expect(binOf('tool', { '.hidden': 'x' })).toBeUndefined();
    expect(binOf('tool', null)).toBeUndefined();
  });

  test('AGENT_MCP_PACKAGE_DIR: its value, off, or a directory of the worker that sandbox users can reach', () => {
    expect(mcpPackageDir({ AGENT_MCP_PACKAGE_DIR: '/srv/mcp' })).toEqual({ mcpPackageDir: '/srv/mcp' });
    expect(mcpPackageDir({ AGENT_MCP_PACKAGE_DIR: 'off' })).toEqual({});
    expect(mcpPackageDir({ HOME: '/root' }, 0)).toEqual({ mcpPackageDir: '/var/cache/durable-agent/mcp-packages' });
    expect(mcpPackageDir({ HOME: '/home/me' }, 1000)).toEqual({
      mcpPackageDir: '/home/me/.cache/durable-agent/mcp-packages',
    });
  });
});
