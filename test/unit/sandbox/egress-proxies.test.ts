/** A worker's proxies: one per policy, in a directory of their own that close() removes. */
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { parseAllowedDomains } from '../../../src/sandbox/allowed-domains';
import { EgressProxies } from '../../../src/sandbox/egress-proxies';
import { scratchDir } from '../../support/paths';

const policy = (...entries: string[]) => parseAllowedDomains(entries, 'test');

/** The status the proxy on `socketPath` answers a CONNECT to `target` with. */
function connectStatus(socketPath: string, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const connecting = request({ socketPath, method: 'CONNECT', path: target });
    connecting.once('connect', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    connecting.once('error', reject);
    connecting.end();
  });
}

/** A port on 127.0.0.1 that nothing listens on (it did a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let proxies: EgressProxies;
beforeEach(() => {
  proxies = new EgressProxies({ parent: scratchDir('egress-proxies') });
});
afterEach(() => proxies.close());

test('one proxy per policy, whatever the order, the spelling or the duplicates; concurrent callers share its start', async () => {
  const pypi = policy('PYPI.org.');
  const example = policy('*.example.com');
  const [first, second, third] = await Promise.all([
    proxies.socketFor([...pypi, ...example]),
    proxies.socketFor([...example, ...pypi]),
    proxies.socketFor([...pypi, ...policy('pypi.org'), ...example]),
  ]);
  expect(second).toBe(first);
  expect(third).toBe(first);
  const other = await proxies.socketFor(policy('pypi.org'));
  expect(other).not.toBe(first);
  expect(dirname(other)).toBe(dirname(first));
  expect(await proxies.socketFor(policy('pypi.org'))).toBe(other);
});

test('each proxy applies its own policy', async () => {
  const port = await closedPort();
  const listed = await proxies.socketFor(policy(`127.0.0.1:${port}`));
  const none = await proxies.socketFor([]);
  expect(await connectStatus(listed, `127.0.0.1:${port === 65535 ? port - 1 : port + 1}`)).toBe(403);
  expect(await connectStatus(none, `127.0.0.1:${port}`)).toBe(403);
  // Listed, and nothing listens there: through the policy, then unreachable.
  expect(await connectStatus(listed, `127.0.0.1:${port}`)).toBe(502);
});

test('a private directory (0711) named for the worker, sockets any local user may connect to (0666)', async () => {
  const socketPath = await proxies.socketFor(policy('pypi.org'));
  const directory = dirname(socketPath);
  expect(basename(directory)).toMatch(new RegExp(`^durable-agent-egress-${process.pid}-[A-Za-z0-9]{6}$`));
  expect(statSync(directory).mode & 0o777).toBe(0o711);
  expect(statSync(socketPath).isSocket()).toBe(true);
  expect(statSync(socketPath).mode & 0o777).toBe(0o666);
});

test('close() closes every proxy and removes the directory; later calls are refused', async () => {
  const socketPath = await proxies.socketFor(policy('pypi.org'));
  const starting = proxies.socketFor(policy('crates.io'));
  await proxies.close();
  expect(existsSync(dirname(socketPath))).toBe(false);
  await expect(connectStatus(socketPath, 'pypi.org:443')).rejects.toThrow(/ENOENT/);
  // A proxy still starting when close() came was closed too.
  expect(existsSync(await starting)).toBe(false);
  await expect(proxies.socketFor(policy('pypi.org'))).rejects.toThrow('the egress proxies are closed');
});

test('a proxy that fails to start is not remembered: the next call tries again', async () => {
  const parent = join(scratchDir('egress-proxies'), 'not-yet');
  const later = new EgressProxies({ parent });
  try {
    await expect(later.socketFor(policy('pypi.org'))).rejects.toThrow(/ENOENT/);
    await mkdir(parent);
    // Neither the directory's failure nor the proxy's was remembered.
    expect(statSync(await later.socketFor(policy('pypi.org'))).isSocket()).toBe(true);
  } finally {
    await later.close();
  }
});
