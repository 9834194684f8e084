import { cli, withUsage } from '../cli-output';

test('without AGENT_CODEC_AUTH or --insecure-no-auth it refuses to start: one line (exit 2)', async () => {
  const result = await cli(['codec-server']);
  expect(result).toMatchObject({ code: 2, stdout: '' });
  expect(result.stderr).toMatch(
    /^durable-agent: the codec server would decrypt for anyone who reaches it: set AGENT_CODEC_AUTH/,
  );
  expect(result.stderr).not.toContain('Usage:');
});

test('a port that is not one is a usage error (exit 2)', async () => {
  expect(await cli(['codec-server', '--insecure-no-auth', '--port', 'x'])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage('--port takes a port number, not x'),
  });
});

test('without the encryption keys there is nothing to decrypt with (exit 1)', async () => {
  expect(await cli(['codec-server', '--insecure-no-auth'])).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'durable-agent: the codec server needs the keys payloads are encrypted with: set AGENT_ENCRYPTION_KEY or AGENT_ENCRYPTION_KEY_FILE\n',
  });
});
