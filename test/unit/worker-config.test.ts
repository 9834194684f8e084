import { createWorker } from '../../src/worker';
import { workerConfigFromEnvironment } from '../../src/worker-config';

describe('the worker environment', () => {
  test('AGENT_HOST_ID names the host (unset: one host, no host queue); it must be able to name a task queue', () => {
    expect(workerConfigFromEnvironment({ AGENT_HOST_ID: 'build-7' }).hostId).toBe('build-7');
    expect(workerConfigFromEnvironment({}).hostId).toBeUndefined();
    expect(() => workerConfigFromEnvironment({ AGENT_HOST_ID: 'build 7' })).toThrow(
      "AGENT_HOST_ID=build 7: use letters, digits, '.', '_' and '-'",
    );
  });

  test('AGENT_WEB_FETCH=1 offers the web tools; AGENT_WEB_SEARCH=0 leaves WebSearch out; unset: neither', () => {
    expect(workerConfigFromEnvironment({ AGENT_WEB_FETCH: '1' })).toMatchObject({ webFetch: true });
    expect(workerConfigFromEnvironment({ AGENT_WEB_FETCH: '1', AGENT_WEB_SEARCH: '0' })).toMatchObject({
      webFetch: true,
      webSearch: false,
    });
    expect(workerConfigFromEnvironment({})).not.toHaveProperty('webFetch');
  });

  test('AGENT_PRICES_FILE names the price file the activities read at startup; unset: the built-in table', () => {
    expect(workerConfigFromEnvironment({ AGENT_PRICES_FILE: '/etc/prices.json' })).toMatchObject({
      pricesFile: '/etc/prices.json',
    });
    expect(workerConfigFromEnvironment({}).pricesFile).toBeUndefined();
  });

  test('AGENT_STORE is read, and its mistakes stop the worker naming it', () => {
    expect(workerConfigFromEnvironment({ AGENT_STORE: 'postgres://db/agent' }).store).toEqual({
      kind: 'postgres',
      url: 'postgres://db/agent',
    });
    expect(() => workerConfigFromEnvironment({ AGENT_STORE: 'redis://db' })).toThrow('AGENT_STORE=redis://db');
  });

  test('AGENT_SNAPSHOT_MAX_FILE_BYTES: bytes or a size; unset: the default', () => {
    expect(workerConfigFromEnvironment({ AGENT_SNAPSHOT_MAX_FILE_BYTES: '16m' }).snapshotMaxFileBytes).toBe(
      16 * 1024 ** 2,
    );
    expect(workerConfigFromEnvironment({}).snapshotMaxFileBytes).toBeUndefined();
    expect(() => workerConfigFromEnvironment({ AGENT_SNAPSHOT_MAX_FILE_BYTES: 'big' })).toThrow(
      'AGENT_SNAPSHOT_MAX_FILE_BYTES=big: a number of bytes',
    );
  });

  test('AGENT_MODEL_CALLS_IN_FLIGHT: a positive integer; unset: no cap (issue 26)', () => {
    expect(workerConfigFromEnvironment({ AGENT_MODEL_CALLS_IN_FLIGHT: '8' }).modelCallsInFlight).toBe(8);
    expect(workerConfigFromEnvironment({}).modelCallsInFlight).toBeUndefined();
    expect(() => workerConfigFromEnvironment({ AGENT_MODEL_CALLS_IN_FLIGHT: '0' })).toThrow(
      'AGENT_MODEL_CALLS_IN_FLIGHT=0: use a positive integer',
    );
  });

  test('AGENT_WORKDIR_LEASE_MS: milliseconds, not too short to renew in time; unset: the default', () => {
    expect(workerConfigFromEnvironment({ AGENT_WORKDIR_LEASE_MS: '60000' }).workdirLeaseMs).toBe(60_000);
    expect(workerConfigFromEnvironment({})).not.toHaveProperty('workdirLeaseMs');
    expect(() => workerConfigFromEnvironment({ AGENT_WORKDIR_LEASE_MS: '500' })).toThrow(
      'AGENT_WORKDIR_LEASE_MS=500: milliseconds, at least 60000',
    );
    expect(() => workerConfigFromEnvironment({ AGENT_WORKDIR_LEASE_MS: '3m' })).toThrow('AGENT_WORKDIR_LEASE_MS=3m');
  });

  test('AGENT_STICKY_QUEUE_TIMEOUT_MS: milliseconds, at least 100; unset: the default', () => {
    expect(workerConfigFromEnvironment({ AGENT_STICKY_QUEUE_TIMEOUT_MS: '5000' }).stickyQueueTimeoutMs).toBe(5_000);
    expect(workerConfigFromEnvironment({})).not.toHaveProperty('stickyQueueTimeoutMs');
    expect(() => workerConfigFromEnvironment({ AGENT_STICKY_QUEUE_TIMEOUT_MS: '50' })).toThrow(
      'AGENT_STICKY_QUEUE_TIMEOUT_MS=50: milliseconds, at least 100',
    );
    expect(() => workerConfigFromEnvironment({ AGENT_STICKY_QUEUE_TIMEOUT_MS: '5s' })).toThrow(
      'AGENT_STICKY_QUEUE_TIMEOUT_MS=5s',
    );
  });

  test('AGENT_INSTRUCTIONS_DIR names the directory of the user instruction files (absolute); unset: none', () => {
    expect(workerConfigFromEnvironment({ AGENT_INSTRUCTIONS_DIR: '/etc/agent-instructions' }).instructionsDir).toBe(
      '/etc/agent-instructions',
    );
    expect(workerConfigFromEnvironment({ AGENT_INSTRUCTIONS_DIR: 'relative/dir' }).instructionsDir).toBe(
      `${process.cwd()}/relative/dir`,
    );
    expect(workerConfigFromEnvironment({})).not.toHaveProperty('instructionsDir');
  });

  test("AGENT_SKILLS_DIR names the directory of the worker's skills (absolute); unset: none", () => {
    expect(workerConfigFromEnvironment({ AGENT_SKILLS_DIR: '/etc/skills' }).skillsDir).toBe('/etc/skills');
    expect(workerConfigFromEnvironment({ AGENT_SKILLS_DIR: 'skills' }).skillsDir).toBe(`${process.cwd()}/skills`);
    expect(workerConfigFromEnvironment({})).not.toHaveProperty('skillsDir');
  });

  test('AGENT_GIT_CONFIG names the git config of clone and push (absolute); a worker refuses to start when it is not a readable file', async () => {
    expect(workerConfigFromEnvironment({ AGENT_GIT_CONFIG: '/etc/agent/gitconfig' }).gitConfig).toBe(
      '/etc/agent/gitconfig',
    );
    expect(workerConfigFromEnvironment({ AGENT_GIT_CONFIG: 'gitconfig' }).gitConfig).toBe(`${process.cwd()}/gitconfig`);
    expect(workerConfigFromEnvironment({})).not.toHaveProperty('gitConfig');
    await expect(
      createWorker(workerConfigFromEnvironment({ AGENT_GIT_CONFIG: '/nonexistent/gitconfig' })),
    ).rejects.toThrow('AGENT_GIT_CONFIG=/nonexistent/gitconfig: no readable file there');
  });
});
