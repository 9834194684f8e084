/** Allow-list entries: parsed strictly, matched in the spelling the proxy dials. */
import {
  allowedDomainFor,
  DEFAULT_ALLOWED_DOMAINS,
  defaultAllowedDomains,
  formatAllowedDomain,
  parseAllowedDomain,
  parseAllowedDomains,
  parseAllowedDomainsList,
  type AllowedDomain,
} from '../../../src/sandbox/allowed-domains';
import { canonicalHost } from '../../../src/sandbox/canonical-host';

test.each([
  ['example.com', { kind: 'exact', host: 'example.com' }],
  ['Registry.NPMJS.org.', { kind: 'exact', host: 'registry.npmjs.org' }],
  ['*.example.com', { kind: 'wildcard', host: 'example.com' }],
  ['example.com:8443', { kind: 'exact', host: 'example.com', port: 8443 }],
  ['*.Example.com:8443', { kind: 'wildcard', host: 'example.com', port: 8443 }],
  ['127.0.0.1:4873', { kind: 'address', host: '127.0.0.1', port: 4873 }],
  ['127.1:4873', { kind: 'address', host: '127.0.0.1', port: 4873 }],
  ['[::1]:8080', { kind: 'address', host: '::1', port: 8080 }],
  ['[::ffff:127.0.0.1]:8080', { kind: 'address', host: '127.0.0.1', port: 8080 }],
  ['[2001:db8::1]', { kind: 'address', host: '2001:db8::1' }],
])('%s parses', (entry, parsed) => {
  expect(parseAllowedDomain(entry)).toEqual(parsed);
});

test.each([
  ['example.com:0', /port "0"/],
  ['example.com:65536', /port "65536"/],
  ['example.com:0443', /port "0443"/],
  ['example.com:', /port ""/],
  ['example.com:http', /port "http"/],
  ['::1', /in brackets/],
  ['::1:8080', /in brackets/],
  ['[::1]8080', /in brackets/],
  ['*', /wildcard is written/],
  ['*.com', /whole top-level domain/],
  ['*.127.0.0.1', /names, not addresses/],
  ['foo*.example.com', /wildcard is written/],
  ['*.*.example.com', /only letters/],
  ['exa mple.com', /only letters/],
  ['example.com\n', /only letters/],
  ['http://example.com', /port "\/\/example.com"/],
  ['example.com/path', /only letters/],
])('%j is refused, saying why', (entry, reason) => {
  expect(() => parseAllowedDomain(entry)).toThrow(reason);
});

test('errors name the setting and the entry, escaped', () => {
  expect(() => parseAllowedDomains(['example.com', 'bad\u0000host'], 'allowedDomains')).toThrow(
    `allowedDomains: "bad\\u0000host": a host name has only letters`,
  );
  expect(() => parseAllowedDomainsList('example.com, exa mple.com', 'AGENT_SANDBOX_ALLOWED_DOMAINS')).toThrow(
    'AGENT_SANDBOX_ALLOWED_DOMAINS: "exa mple.com"',
  );
});

test('a list is canonical, sorted and without duplicates; a setting of only commas is refused', () => {
  const list = parseAllowedDomainsList(
    ' pypi.org, ,*.Example.com,PyPI.org.,[0::1]:80 ',
    'AGENT_SANDBOX_ALLOWED_DOMAINS',
  );
  expect(list.map(formatAllowedDomain)).toEqual(['*.example.com', '[::1]:80', 'pypi.org']);
  expect(() => parseAllowedDomainsList(' , ', 'AGENT_SANDBOX_ALLOWED_DOMAINS')).toThrow(
    'AGENT_SANDBOX_ALLOWED_DOMAINS names no domain',
  );
});

test('the default list parses, each entry an exact name', () => {
  const list = defaultAllowedDomains();
  expect(list).toHaveLength(DEFAULT_ALLOWED_DOMAINS.length);
  expect(list.every((entry) => entry.kind === 'exact' && entry.port === undefined)).toBe(true);
});

describe('matching', () => {
  const allowed = parseAllowedDomains(
    [
      'example.com',
      '*.example.org',
      'ssh.example.net:22',
      '*.corp.test',
      'registry.corp.test',
      '127.0.0.1:4873',
      '[::1]:8080',
    ],
    'test',
  );
  const match = (host: string, port: number): AllowedDomain | undefined =>
    allowedDomainFor(allowed, canonicalHost(host), port);

  test('a name entry without a port opens 80 and 443 only', () => {
    expect(match('example.com', 443)).toEqual({ kind: 'exact', host: 'example.com' });
    expect(match('example.com', 80)).toBeDefined();
    expect(match('example.com', 22)).toBeUndefined();
    expect(match('example.com', 8443)).toBeUndefined();
  });

  test('case and a trailing dot do not matter; other names do', () => {
    expect(match('EXAMPLE.com.', 443)).toBeDefined();
    expect(match('www.example.com', 443)).toBeUndefined();
    expect(match('example.com.evil.test', 443)).toBeUndefined();
    expect(match('notexample.com', 443)).toBeUndefined();
  });

  test('a wildcard covers names under its domain, not the domain, and not names that only end alike', () => {
    expect(match('a.example.org', 443)).toEqual({ kind: 'wildcard', host: 'example.org' });
    expect(match('a.b.example.org', 80)).toBeDefined();
    expect(match('example.org', 443)).toBeUndefined();
    expect(match('badexample.org', 443)).toBeUndefined();
  });

  test('a port entry opens that port only', () => {
    expect(match('ssh.example.net', 22)).toBeDefined();
    expect(match('ssh.example.net', 443)).toBeUndefined();
  });

  test('an exact entry wins over a wildcard that also matches', () => {
    expect(match('registry.corp.test', 443)).toEqual({ kind: 'exact', host: 'registry.corp.test' });
    expect(match('other.corp.test', 443)).toEqual({ kind: 'wildcard', host: 'corp.test' });
  });

  test('addresses match address entries in any spelling, on their port only', () => {
    for (const spelling of ['127.0.0.1', '127.1', '2130706433', '0x7f.1', '0177.0.0.1', '[::ffff:127.0.0.1]']) {
      expect(match(spelling, 4873)).toEqual({ kind: 'address', host: '127.0.0.1', port: 4873 });
      expect(match(spelling, 4874)).toBeUndefined();
      expect(match(spelling, 443)).toBeUndefined();
    }
    expect(match('[0:0::1]', 8080)).toBeDefined();
    expect(match('[::1]', 4873)).toBeUndefined();
  });

  test('a name never matches an address entry, nor an address a name entry', () => {
    expect(
      allowedDomainFor(parseAllowedDomains(['localhost'], 'test'), canonicalHost('127.0.0.1'), 443),
    ).toBeUndefined();
    expect(match('localhost', 4873)).toBeUndefined();
  });
});
