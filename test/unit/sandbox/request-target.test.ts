/** Where a proxy client asks to go, read by the allow-list's host rules. */
import { absoluteTarget, connectTarget, hostHeader } from '../../../src/sandbox/request-target';

test('CONNECT takes host:port, canonical', () => {
  expect(connectTarget('Example.COM.:443')).toEqual({ host: { kind: 'name', host: 'example.com' }, port: 443 });
  expect(connectTarget('[::1]:8080')).toEqual({ host: { kind: 'ipv6', host: '::1' }, port: 8080 });
  expect(connectTarget('0x7f.1:22')).toEqual({ host: { kind: 'ipv4', host: '127.0.0.1' }, port: 22 });
  expect(() => connectTarget('example.com')).toThrow('"example.com" is no destination: CONNECT takes host:port');
  expect(() => connectTarget('example.com:99999')).toThrow('port "99999"');
  expect(() => connectTarget('::1:443')).toThrow('in brackets');
});

test('an absolute http URI gives the destination and the origin-form path, as written', () => {
  expect(absoluteTarget('http://example.com')).toEqual({
    destination: { host: { kind: 'name', host: 'example.com' }, port: 80 },
    path: '/',
  });
  expect(absoluteTarget('HTTP://[::1]:8080?q=1')).toEqual({
    destination: { host: { kind: 'ipv6', host: '::1' }, port: 8080 },
    path: '/?q=1',
  });
  expect(absoluteTarget('http://example.com/a%2Fb?c=d')).toMatchObject({ path: '/a%2Fb?c=d' });
});

test.each([
  ['/path', 'absolute http:// URIs'],
  ['https://example.com/', 'use CONNECT for https'],
  ['http://example.com/#fragment', 'absolute http:// URIs'],
  ['http://allowed.example@other.example/', 'user info'],
  ['http://ex%61mple.com/', 'only letters'],
  ['http://example.com:/', 'port ""'],
])('%s is refused', (url, reason) => {
  expect(() => absoluteTarget(url)).toThrow(reason);
});

test('the Host header leaves out port 80 and brackets IPv6', () => {
  expect(hostHeader({ host: { kind: 'name', host: 'example.com' }, port: 80 })).toBe('example.com');
  expect(hostHeader({ host: { kind: 'ipv6', host: '::1' }, port: 8080 })).toBe('[::1]:8080');
});
