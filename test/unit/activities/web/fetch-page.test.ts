/**
 * WebFetch's requests against a local HTTP server, on a filtered route (the egress proxy's own
 * connection code, with the session's allowed domains) and on the host's network.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { fetchPage, FetchRefused, type WebRoute } from '../../../../src/activities/web/fetch-page';
import { parseAllowedDomains } from '../../../../src/sandbox/allowed-domains';

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/moved') return void response.writeHead(301, { location: '/page' }).end();
    if (request.url === '/away') return void response.writeHead(302, { location: 'https://example.org/x' }).end();
    if (request.url === '/gzip')
      return void response
        .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
        .end(gzipSync('zipped text'));
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<h1>Page</h1><p>${request.url}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const signal = new AbortController().signal;
const filtered = (entries: string[]): WebRoute => ({ mode: 'filtered', allowed: parseAllowedDomains(entries, 'test') });

test('a host on the allowed domains is fetched; a same-host redirect is followed, another host reported', async () => {
  const route = filtered([`127.0.0.1:${port}`]);
  const page = await fetchPage(new URL(`http://127.0.0.1:${port}/moved`), route, signal);
  expect(page).toMatchObject({ url: `http://127.0.0.1:${port}/page`, status: 200, cut: false });
  expect(page.body.toString()).toBe('<h1>Page</h1><p>/page</p>');
  const away = await fetchPage(new URL(`http://127.0.0.1:${port}/away`), route, signal);
  expect(away).toMatchObject({ status: 302, redirect: 'https://example.org/x' });
  const zipped = await fetchPage(new URL(`http://127.0.0.1:${port}/gzip`), route, signal);
  expect(zipped.body.toString()).toBe('zipped text');
});

test("a host the session's commands could not reach is refused, saying how to allow it", async () => {
  const fetching = fetchPage(new URL(`http://127.0.0.1:${port}/page`), filtered(['example.com']), signal);
  await expect(fetching).rejects.toThrow(FetchRefused);
  await expect(fetching).rejects.toThrow(/do not let it reach 127\.0\.0\.1:\d+: .*allowedDomains/);
});

test("on the host's network the worker's own connection is used", async () => {
  const page = await fetchPage(new URL(`http://127.0.0.1:${port}/here`), { mode: 'host' }, signal);
  expect(page.body.toString()).toContain('/here');
});
