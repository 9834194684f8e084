import { cli, withUsage } from '../cli-output';

test('watch without a workflow id is a usage error (exit 2)', async () => {
  expect(await cli(['watch', '--json'])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage('usage: durable-agent watch <workflow-id> [--json]'),
  });
});

test('an unknown option fails with its message only (exit 1), as it always has', async () => {
  const result = await cli(['watch', 'id', '--bogus']);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain("Unknown option '--bogus'");
  expect(result.stderr).not.toContain('Usage:');
});
