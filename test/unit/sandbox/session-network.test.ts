/** A session's network: what it asks, what the worker allows, and what it is told. */
import { parseAllowedDomains } from '../../../src/sandbox/allowed-domains';
import { type NetworkSettings, sessionNetwork } from '../../../src/sandbox/session-network';

const worker = (overrides: Partial<NetworkSettings> = {}): NetworkSettings => ({
  enabled: true,
  allowHost: false,
  allowedDomains: parseAllowedDomains(['registry.npmjs.org'], 'test'),
  ...overrides,
});
const hosts = (network: ReturnType<typeof sessionNetwork>) => network.allowedDomains.map((entry) => entry.host);

test('filtered by default: the worker list and the session entries together, each once', () => {
  expect(sessionNetwork(undefined, worker())).toMatchObject({ mode: 'filtered', warnings: [] });
  const network = sessionNetwork(
    { network: true, allowedDomains: ['registry.npmjs.org', 'git.example.com', '127.0.0.1:4873'] },
    worker(),
  );
  expect(network.mode).toBe('filtered');
  expect(hosts(network).sort()).toEqual(['127.0.0.1', 'git.example.com', 'registry.npmjs.org']);
});

test('none, in both spellings, and for every session when the worker turns network off', () => {
  expect(sessionNetwork({ network: false }, worker()).mode).toBe('none');
  expect(sessionNetwork({ network: 'none' }, worker()).mode).toBe('none');
  expect(sessionNetwork({ network: 'host' }, worker({ enabled: false, allowHost: true })).mode).toBe('none');
});

test('host only where the worker allows it, with a warning either way', () => {
  const refused = sessionNetwork({ network: 'host' }, worker());
  expect(refused).toMatchObject({
    mode: 'filtered',
    warnings: [expect.stringContaining('needs AGENT_SANDBOX_ALLOW_HOST_NETWORK=1')],
  });
  const granted = sessionNetwork({ network: 'host' }, worker({ allowHost: true }));
  expect(granted).toMatchObject({ mode: 'host', warnings: [expect.stringContaining('reach everything on it')] });
});

test('an entry the worker cannot parse is left out with a warning; no proxy here means no network', () => {
  const network = sessionNetwork({ allowedDomains: ['999.1.1.1.1'] }, worker());
  expect(network).toMatchObject({ mode: 'filtered', warnings: [expect.stringContaining('left out')] });
  expect(hosts(network)).toEqual(['registry.npmjs.org']);
  expect(sessionNetwork(undefined, worker({ filterUnavailable: 'socat is not installed' }))).toMatchObject({
    mode: 'none',
    warnings: [expect.stringContaining('socat is not installed')],
  });
});
