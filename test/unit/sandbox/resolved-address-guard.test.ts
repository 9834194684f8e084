/** What a listed name may resolve to and still be dialed. */
import { parseAllowedDomain, parseAllowedDomains } from '../../../src/sandbox/allowed-domains';
import { screenAddresses } from '../../../src/sandbox/resolved-address-guard';

const exact = parseAllowedDomain('registry.corp.test');
const wildcard = parseAllowedDomain('*.example.test');
const context = (match = exact, entries: string[] = [], ownAddresses: string[] = []) => ({
  match,
  allowed: parseAllowedDomains(entries, 'test'),
  ownAddresses,
});

test.each([
  ['127.0.0.1', 'a loopback address'],
  ['127.3.4.5', 'a loopback address'],
  ['::1', 'a loopback address'],
  ['::ffff:127.0.0.1', 'a loopback address'],
  ['0.0.0.0', 'an unspecified address'],
  ['::', 'an unspecified address'],
  ['169.254.169.254', 'a link-local address'],
  ['::ffff:169.254.169.254', 'a link-local address'],
  ['fe80::1', 'a link-local address'],
  ['fd00:ec2::254', 'a cloud metadata address'],
  ['100.100.100.200', 'a cloud metadata address'],
  ['224.0.0.1', 'a multicast or broadcast address'],
  ['255.255.255.255', 'a multicast or broadcast address'],
  ['ff02::1', 'a multicast or broadcast address'],
  ['64:ff9b::7f00:1', 'a loopback address'],
  ['2002:a9fe:a9fe::1', 'a link-local address'],
  ['not-an-address', 'something that is no IP address'],
])('no name reaches %s (%s), not even an exact one', (address, reason) => {
  expect(screenAddresses([address], 443, context())).toEqual({ permitted: [], refused: [reason] });
  expect(screenAddresses([address], 443, context(wildcard))).toEqual({ permitted: [], refused: [reason] });
});

test.each([
  '10.1.2.3',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '100.64.0.1',
  'fd12:3456::1',
  '::ffff:10.0.0.1',
  '64:ff9b::a00:1',
])('private %s: an exact name may reach it, a wildcard may not', (address) => {
  expect(screenAddresses([address], 443, context()).permitted).toHaveLength(1);
  expect(screenAddresses([address], 443, context(wildcard))).toEqual({
    permitted: [],
    refused: ['a private address, which only an exact name entry may reach'],
  });
});

test('public addresses pass, canonical, in the resolver order', () => {
  expect(screenAddresses(['2606:4700::1111', '1.1.1.1', '::ffff:8.8.8.8'], 443, context(wildcard))).toEqual({
    permitted: ['2606:4700::1111', '1.1.1.1', '8.8.8.8'],
    refused: [],
  });
  expect(screenAddresses(['172.32.0.1', '11.0.0.1'], 443, context(wildcard)).permitted).toEqual([
    '172.32.0.1',
    '11.0.0.1',
  ]);
});

test("the worker's own addresses are refused: a service bound to 0.0.0.0 answers there as on loopback", () => {
  expect(screenAddresses(['203.0.113.7'], 443, context(exact, [], ['203.0.113.7']))).toEqual({
    permitted: [],
    refused: ["one of the worker's own addresses"],
  });
});

test('refused addresses are dropped, the others kept; each reason once, in a fixed order', () => {
  expect(screenAddresses(['::1', '127.0.0.1', '169.254.1.1', '93.184.215.14'], 443, context())).toEqual({
    permitted: ['93.184.215.14'],
    refused: ['a loopback address', 'a link-local address'],
  });
  expect(screenAddresses(['169.254.1.1', '::1'], 443, context()).refused).toEqual([
    'a loopback address',
    'a link-local address',
  ]);
});

test('an address listed as an IP entry may be reached by a listed name, on that port only', () => {
  const withLiteral = context(parseAllowedDomain('localhost:4873'), ['localhost:4873', '127.0.0.1:4873']);
  expect(screenAddresses(['127.0.0.1', '::1'], 4873, withLiteral)).toEqual({
    permitted: ['127.0.0.1'],
    refused: ['a loopback address'],
  });
  expect(screenAddresses(['127.0.0.1'], 4874, withLiteral).permitted).toEqual([]);
  expect(screenAddresses(['127.0.0.1'], 443, context(exact, ['127.0.0.1'])).permitted).toEqual(['127.0.0.1']);
  expect(screenAddresses(['127.0.0.1'], 8080, context(exact, ['127.0.0.1'])).permitted).toEqual([]);
});
