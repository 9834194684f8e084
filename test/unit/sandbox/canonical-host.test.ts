/** One spelling per host: what the allow-list compares is what the proxy dials. */
import { canonicalAddress, canonicalHost, formatHost } from '../../../src/sandbox/canonical-host';

test.each([
  ['Example.COM', 'name', 'example.com'],
  ['registry.npmjs.org.', 'name', 'registry.npmjs.org'],
  ['_acme-challenge.example.com', 'name', '_acme-challenge.example.com'],
  ['127.0.0.1', 'ipv4', '127.0.0.1'],
  ['127.1', 'ipv4', '127.0.0.1'],
  ['2130706433', 'ipv4', '127.0.0.1'],
  ['0x7f.1', 'ipv4', '127.0.0.1'],
  ['0x7F.0.0.1', 'ipv4', '127.0.0.1'],
  ['0177.0.0.1', 'ipv4', '127.0.0.1'],
  ['127.0.0.1.', 'ipv4', '127.0.0.1'],
  ['[::1]', 'ipv6', '::1'],
  ['[0:0:0:0:0:0:0:1]', 'ipv6', '::1'],
  ['[2001:DB8::0:1]', 'ipv6', '2001:db8::1'],
  ['[::ffff:127.0.0.1]', 'ipv4', '127.0.0.1'],
  ['[::ffff:7f00:1]', 'ipv4', '127.0.0.1'],
  ['[0:0:0:0:0:ffff:a9fe:a9fe]', 'ipv4', '169.254.169.254'],
])('%s is the %s %s', (text, kind, host) => {
  expect(canonicalHost(text)).toEqual({ kind, host });
});

test.each([
  ['', /no host/],
  ['.', /1 to 253/],
  ['exa mple.com', /only letters/],
  ['example.com\t', /only letters/],
  ['exa\u0000mple.com', /only letters/],
  ['exa\r\nmple.com', /only letters/],
  ['exa\u007fmple.com', /only letters/],
  ['ex%61mple.com', /only letters/],
  ['user@example.com', /only letters/],
  ['exämple.com', /only letters/],
  ['a..example.com', /each label/],
  ['.example.com', /each label/],
  [`${'a'.repeat(64)}.com`, /each label/],
  [`${'a.'.repeat(127)}com`, /1 to 253/],
  ['1.2.3.4.5', /no valid IPv4/],
  ['256.1.1.1', /no valid IPv4/],
  ['09.1.1.1', /no valid IPv4/],
  ['foo.123', /no valid IPv4/],
  ['xn--.com', /punycode/],
  ['::1', /in brackets/],
  ['example.com:443', /in brackets/],
  ['[fe80::1%eth0]', /not an IPv6/],
  ['[127.0.0.1]', /not an IPv6/],
  ['[example.com]', /not an IPv6/],
])('%j is refused', (text, reason) => {
  expect(() => canonicalHost(text)).toThrow(reason);
});

test('resolver answers are spelled as hosts are; anything else is no address', () => {
  expect(canonicalAddress('::ffff:10.0.0.1')).toBe('10.0.0.1');
  expect(canonicalAddress('2001:0db8:0000::0001')).toBe('2001:db8::1');
  expect(canonicalAddress('192.168.1.1')).toBe('192.168.1.1');
  expect(canonicalAddress('fe80::1%eth0')).toBeUndefined();
  expect(canonicalAddress('example.com')).toBeUndefined();
});

test('an IPv6 host is written in brackets', () => {
  expect(formatHost({ kind: 'ipv6', host: '::1' })).toBe('[::1]');
  expect(formatHost({ kind: 'ipv4', host: '127.0.0.1' })).toBe('127.0.0.1');
});
