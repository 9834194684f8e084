/**
 * docker-compose.yml as Docker Compose reads it: loaded, interpolated and validated by
 * compose-go, the library `docker compose config` is built on (this machine has no Compose).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { AGENT_SEARCH_ATTRIBUTES, cliTypeName } from '../../src/shared/search-attributes';
import { PROJECT_ROOT } from '../support/paths';

jest.setTimeout(300_000);

const run = promisify(execFile);
const TOKEN = '5f2b8c1e9a7d4036b1e2c3d4e5f60718';
/** What compose requires to be set, and `environment` over it. */
const composeConfig = (environment: NodeJS.ProcessEnv) =>
  run('go', ['run', '.', join(PROJECT_ROOT, 'docker-compose.yml')], {
    cwd: join(PROJECT_ROOT, 'scripts', 'compose-config'),
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      AGENT_ENCRYPTION_KEY: 'k1:test-key',
      AGENT_CODEC_AUTH: TOKEN,
      ...environment,
    },
  });

test('the compose file is valid, and its worker is sandboxed and rooted in /workspace', async () => {
  const { stdout } = await composeConfig({ ANTHROPIC_API_KEY: 'sk-ant-test', AGENT_ENCRYPTION_KEY: 'k1:test-key' });
  const worker = stdout.slice(stdout.indexOf('\n    worker:'));
  expect(worker).toContain('AGENT_SANDBOX: bwrap');
  expect(worker).toContain('AGENT_WORKSPACE_ROOTS: /workspace');
  for (const option of ['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined'])
    expect(worker).toContain(`- ${option}`);
  expect(worker).toMatch(/source: agent-data\n\s+target: \/data/);
  // The store every worker replica shares: the compose PostgreSQL, in a database apart from Temporal's.
  expect(worker).toContain('AGENT_STORE: postgres://temporal:temporal@postgresql:5432/durable_agent');
  expect(worker).toMatch(/agent-store:\n\s+condition: service_completed_successfully/);
  // Nothing listens beyond this machine by default.
  const published = [...stdout.matchAll(/host_ip: (\S+)\n\s+target: \d+\n\s+published: "(\d+)"/g)].map(
    (match) => `${match[1]}:${match[2]}`,
  );
  expect(published.sort()).toEqual(['127.0.0.1:7233', '127.0.0.1:8081', '127.0.0.1:8233']);
  // Encrypted payloads: the worker and the codec server share the key, and the UI decodes through it.
  expect(worker).toContain('AGENT_ENCRYPTION_KEY: k1:test-key');
  const codec = stdout.slice(stdout.indexOf('\n    codec-server:'), stdout.indexOf('\n    postgresql:'));
  expect(codec).toContain('AGENT_ENCRYPTION_KEY: k1:test-key');
  expect(codec).toMatch(/- codec-server\n\s+- --host\n\s+- 0\.0\.0\.0/);
  // On all of its container's interfaces (the compose network, the worker's sandboxes included), so never without its token.
  expect(codec).toContain(`AGENT_CODEC_AUTH: ${TOKEN}`);
  expect(codec).not.toContain('--insecure-no-auth');
  expect(codec).toContain('AGENT_CODEC_NAMESPACES: default');
  expect(worker).not.toContain('AGENT_CODEC_AUTH');
  // The UI cannot send a bearer token: it sends the cookie a browser gets by signing in at the codec server.
  const ui = stdout.slice(stdout.indexOf('\n    temporal-ui:'));
  expect(ui).toContain('TEMPORAL_CODEC_ENDPOINT: http://localhost:8081');
  expect(ui).toContain('TEMPORAL_CODEC_INCLUDE_CREDENTIALS: "true"');
  // The collector is optional: not in the default set of services.
  expect(stdout).not.toContain('otel-collector:');
});

test('the tracing profile adds an OpenTelemetry collector the worker can export to', async () => {
  const { stdout } = await composeConfig({
    ANTHROPIC_API_KEY: 'sk-ant-test',
    AGENT_ENCRYPTION_KEY: 'k1:test-key',
    COMPOSE_PROFILES: 'tracing',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
  });
  expect(stdout).toContain('otel-collector:');
  expect(stdout).toContain('target: /etc/otelcol/config.yaml');
  expect(stdout.slice(stdout.indexOf('\n    worker:'))).toContain(
    'OTEL_EXPORTER_OTLP_ENDPOINT: http://otel-collector:4318',
  );
});

test('the namespace setup registers every search attribute of the contract, as the dev server does', () => {
  const script = readFileSync(join(PROJECT_ROOT, 'deploy', 'setup-namespace.sh'), 'utf8');
  const listed = script
    .match(/for attribute in ([^;]+);/)![1]!
    .trim()
    .split(/\s+/);
  expect(listed).toEqual(AGENT_SEARCH_ATTRIBUTES.map((key) => `${key.name}=${cliTypeName(key)}`));
});

test('without ANTHROPIC_API_KEY, AGENT_ENCRYPTION_KEY or AGENT_CODEC_AUTH it refuses to start, saying what to set', async () => {
  const refusal = async (environment: NodeJS.ProcessEnv) =>
    ((await composeConfig(environment).catch((error: unknown) => error)) as { stderr: string }).stderr;
  expect(await refusal({ ANTHROPIC_API_KEY: '' })).toContain('set ANTHROPIC_API_KEY before docker compose up');
  expect(await refusal({ AGENT_ENCRYPTION_KEY: '' })).toContain('set AGENT_ENCRYPTION_KEY before docker compose up');
  expect(await refusal({ AGENT_CODEC_AUTH: '' })).toContain(
    'set AGENT_CODEC_AUTH before docker compose up (the codec server decrypts only for it)',
  );
});
