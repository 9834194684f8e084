/** What a session asks of its sandbox, as its input gives it. */
import { checkAgentInput } from '../../../src/shared/input';
import { remoteHost, sessionAllowedDomains } from '../../../src/shared/sandbox';

test("a repo's https remote is an allowed domain of its session; ssh and file remotes are not", () => {
  expect(remoteHost('https://github.com/acme/app.git')).toBe('github.com');
  expect(remoteHost('https://user:token@git.example.com:8443/x.git')).toBe('git.example.com:8443');
  expect(remoteHost('ssh://git@github.com/acme/app.git')).toBeUndefined();
  expect(remoteHost('file:///srv/repo.git')).toBeUndefined();
  expect(
    sessionAllowedDomains({
      allowedDomains: ['pypi.org', 'github.com'],
      repo: { url: 'https://github.com/acme/app.git' },
    }),
  ).toEqual(['pypi.org', 'github.com']);
});

test('input network is a mode (or the older boolean); allowedDomains are checked for their shape', () => {
  for (const network of [true, false, 'filtered', 'none', 'host']) {
    expect(checkAgentInput({ prompt: 'p', workdir: '/w', network })).toMatchObject({ ok: true, input: { network } });
  }
  expect(checkAgentInput({ prompt: 'p', workdir: '/w', network: 'open' })).toMatchObject({
    ok: false,
    message: expect.stringContaining('network:'),
  });
  expect(
    checkAgentInput({
      prompt: 'p',
      workdir: '/w',
      allowedDomains: ['registry.example.com', '*.corp.example', '127.0.0.1:4873'],
    }),
  ).toMatchObject({ ok: true });
  expect(checkAgentInput({ prompt: 'p', workdir: '/w', allowedDomains: ['http://evil.example/'] })).toMatchObject({
    ok: false,
    message: expect.stringContaining('allowedDomains.0: must look like example.com'),
  });
});
