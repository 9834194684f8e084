/**
 * The codec server's settings and checks, as pure functions: what it refuses to start with, what
 * counts as loopback, which tokens, cookies and namespaces pass. The process and its HTTP answers
 * are in test/integration/encryption.test.ts.
 */
import {
  bearerMatches,
  cookieMatches,
  isLoopback,
  namespaceRefusal,
  parseCodecToken,
  servedNamespaces,
  signInCookie,
} from '../../../src/cli/codec-auth';
import { codecServerSettings } from '../../../src/cli/codec-server';
import { UsageError } from '../../../src/cli/cli-client';

const TOKEN = '5f2b8c1e9a7d4036b1e2c3d4e5f60718';

function refusal(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('codec-server settings', () => {
  test('without AGENT_CODEC_AUTH and without --insecure-no-auth it refuses, in one line naming both', () => {
    for (const environment of [{}, { AGENT_CODEC_AUTH: '' }, { AGENT_CODEC_AUTH: '   ' }]) {
      const error = refusal(() => codecServerSettings([], environment));
      expect(error.message).toMatch(/set AGENT_CODEC_AUTH .*or pass --insecure-no-auth/);
      expect(error.message).not.toContain('\n');
      expect(error.showUsage).toBe(false);
    }
  });

  test('--insecure-no-auth is for loopback only', () => {
    const insecure = codecServerSettings(['--insecure-no-auth'], {});
    expect(insecure.host).toBe('127.0.0.1');
    expect(insecure.token).toBeUndefined();
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.1.2.3'])
      expect(codecServerSettings(['--insecure-no-auth', '--host', host], {}).host).toBe(host);
    expect(codecServerSettings(['--insecure-no-auth', '--host', '[::1]'], {}).host).toBe('::1');
    for (const host of ['0.0.0.0', '::', '10.0.0.7', '192.168.1.20', 'fe80::1', 'codec.internal']) {
      expect(refusal(() => codecServerSettings(['--insecure-no-auth', '--host', host], {})).message).toBe(
        `--insecure-no-auth listens on loopback only, not --host ${host}: set AGENT_CODEC_AUTH to serve other machines`,
      );
    }
    expect(refusal(() => codecServerSettings(['--insecure-no-auth'], { AGENT_CODEC_AUTH: TOKEN })).message).toContain(
      'drop one of them',
    );
  });

  test('with a token it serves any host; "Bearer <token>" is read as the token', () => {
    expect(codecServerSettings(['--host', '0.0.0.0', '--port', '9000'], { AGENT_CODEC_AUTH: TOKEN })).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      token: TOKEN,
    });
    expect(codecServerSettings([], { AGENT_CODEC_AUTH: `Bearer ${TOKEN}` }).token).toBe(TOKEN);
  });

  test('a token too short or unfit for a header is refused without being shown', () => {
    expect(() => parseCodecToken('team-token')).toThrow('AGENT_CODEC_AUTH is 10 characters: a token needs at least 16');
    expect(() => parseCodecToken('a token with spaces in it')).toThrow('printable ASCII without spaces');
    expect(() => parseCodecToken('0123456789abcdef;x')).toThrow('semicolons');
    expect(() => parseCodecToken('0123456789abcdéf0')).not.toThrow('0123456789abcdéf0');
    expect(() => parseCodecToken('short', '/home/me/.durable-agent/codec-token')).toThrow(
      '/home/me/.durable-agent/codec-token is 5 characters',
    );
  });

  test('bad flags are usage errors', () => {
    expect(refusal(() => codecServerSettings(['--port', 'http'], { AGENT_CODEC_AUTH: TOKEN })).message).toBe(
      '--port takes a port number, not http',
    );
    expect(refusal(() => codecServerSettings(['--port', '70000'], { AGENT_CODEC_AUTH: TOKEN })).showUsage).toBe(true);
    expect(refusal(() => codecServerSettings(['--insecure'], {})).message).toContain("Unknown option '--insecure'");
  });
});

test('loopback: 127.0.0.0/8, ::1 in its spellings, IPv4-mapped 127.x, localhost; nothing else', () => {
  for (const host of [
    '127.0.0.1',
    '127.255.0.9',
    'localhost',
    'LOCALHOST',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
  ])
    expect(isLoopback(host)).toBe(true);
  for (const host of [
    '0.0.0.0',
    '',
    '::',
    '128.0.0.1',
    '::ffff:10.0.0.1',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    '10.1.2.3',
  ])
    expect(isLoopback(host)).toBe(false);
});

test('the bearer header: the scheme in any case, the token exactly', () => {
  expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
  expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
  for (const header of [
    undefined,
    '',
    TOKEN,
    `Bearer ${TOKEN}x`,
    `Bearer ${TOKEN.slice(1)}`,
    `Basic ${TOKEN}`,
    `Bearer ${TOKEN} extra`,
  ])
    expect(bearerMatches(header, TOKEN)).toBe(false);
});

test("the sign-in cookie: named for the port, derived from the token, checked among the browser's others", () => {
  const cookie = signInCookie(TOKEN, 8081);
  expect(cookie.name).toBe('durable-agent-codec-8081');
  expect(cookie.value).not.toContain(TOKEN);
  expect(signInCookie('another-token-entirely', 8081).value).not.toBe(cookie.value);
  expect(cookieMatches(`theme=dark; ${cookie.name}=${cookie.value}`, cookie)).toBe(true);
  for (const header of [
    undefined,
    '',
    `${cookie.name}=`,
    `${cookie.name}=${cookie.value}x`,
    `durable-agent-codec-8082=${cookie.value}`,
    `x${cookie.name}=${cookie.value}`,
  ]) {
    expect(cookieMatches(header, cookie)).toBe(false);
  }
});

test('the namespaces served: --namespace, else AGENT_CODEC_NAMESPACES, else TEMPORAL_NAMESPACE, else default', () => {
  expect([...servedNamespaces(undefined, {})]).toEqual(['default']);
  expect([...servedNamespaces(undefined, { TEMPORAL_NAMESPACE: 'my-ns.a1b2c' })]).toEqual(['my-ns.a1b2c']);
  expect([...servedNamespaces(undefined, { TEMPORAL_NAMESPACE: 'x', AGENT_CODEC_NAMESPACES: 'a, b' })]).toEqual([
    'a',
    'b',
  ]);
  expect([...servedNamespaces(['c', 'd,e'], { AGENT_CODEC_NAMESPACES: 'a' })]).toEqual(['c', 'd', 'e']);
  expect(() => servedNamespaces(undefined, { AGENT_CODEC_NAMESPACES: 'a,,b' })).toThrow(
    'AGENT_CODEC_NAMESPACES: "" is not a namespace name',
  );
  expect(() => servedNamespaces(['a b'], {})).toThrow('--namespace: "a b" is not a namespace name');
});

test('X-Namespace: absent passes, a served one passes, anything else (several, empty, unknown) is refused', () => {
  const served = new Set(['default', 'agents']);
  expect(namespaceRefusal(undefined, served)).toBeUndefined();
  expect(namespaceRefusal('agents', served)).toBeUndefined();
  expect(namespaceRefusal('payments', served)).toBe(
    'namespace "payments" is not served here (serving: default, agents): set --namespace or AGENT_CODEC_NAMESPACES',
  );
  for (const header of ['', 'Default', 'default, agents', ['default', 'agents']])
    expect(namespaceRefusal(header, served)).toBeDefined();
});
