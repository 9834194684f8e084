/**
 * Encrypted payloads as a deployment runs them: a worker process and our CLI with
 * AGENT_ENCRYPTION_KEY, a marker in the prompt and in a file the agent reads. Nothing in the
 * history as stored, nor in the store, holds the marker; `temporal workflow show` with our codec
 * server shows it; a key rotated in still decrypts the first session.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { Pool } from 'pg';
import { CliProcess } from '../support/cli-process';
import { reply, text, toolUse, turnOf, type FakeReply } from '../support/fake-anthropic';
import { freePort } from '../support/global-setup';
import { Harness, killProcess, makeRepo, temporalAddress } from '../support/harness';

jest.setTimeout(180_000);

const run = promisify(execFile);
const MARKER = `MARKER-${randomBytes(8).toString('hex')}`;
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const FIRST = key('k1');
const SECOND = key('k2');

let harness: Harness;
const processes: CliProcess[] = [];
beforeAll(async () => {
  harness = await Harness.start();
  // Each session reads secret.txt, then answers with what it says.
  harness.fake.handler = (request): FakeReply =>
    turnOf(request) === 0
      ? reply([toolUse('Read', { file_path: 'secret.txt' })])
      : reply([text(`The file says ${MARKER}.`)]);
});
afterAll(async () => {
  for (const process of processes) process.kill();
  await harness?.stop();
});

function environment(keys: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: temporalAddress(),
    AGENT_TASK_QUEUE: harness.taskQueue,
    ...harness.storeEnvironment(),
    ANTHROPIC_API_KEY: 'test-key',
    AGENT_ENCRYPTION_KEY: keys,
  };
}

function durableAgent(args: string[], keys: string): CliProcess {
  const cli = new CliProcess(args, environment(keys));
  processes.push(cli);
  return cli;
}

async function session(keys: string, workflowId: string): Promise<void> {
  const workdir = makeRepo({ 'secret.txt': `the code word is ${MARKER}\n` });
  const cli = durableAgent(
    [
      'run',
      '--no-worker',
      '--workdir',
      workdir,
      '--workflow-id',
      workflowId,
      `Find the code word (${MARKER}) and tell me.`,
    ],
    keys,
  );
  expect(await cli.exited).toBe(0);
  expect(cli.stdout.map((line) => line.text).join('\n')).toContain(`The file says ${MARKER}.`);
}

/** Every byte string of the history as the server stores it (payload data and metadata included). */
function rawBytes(value: unknown, into: Buffer[] = []): Buffer[] {
  if (value instanceof Uint8Array) into.push(Buffer.from(value));
  else if (typeof value === 'string') into.push(Buffer.from(value));
  else if (value && typeof value === 'object') for (const child of Object.values(value)) rawBytes(child, into);
  return into;
}

/** The store's files (file store) or rows (PostgreSQL) that hold the marker. */
async function storeHits(): Promise<string[]> {
  const setting = harness.store.setting;
  if (setting.kind === 'postgres') {
    const pool = new Pool({ connectionString: setting.url });
    try {
      const { rows } = await pool.query<{ ref: string }>(
        "SELECT ref FROM content_objects WHERE position(convert_to($1, 'UTF8') in data) > 0",
        [MARKER],
      );
      const journal = await pool.query<{ call_key: string }>(
        'SELECT call_key FROM effect_journal WHERE record::text LIKE $1',
        [`%${MARKER}%`],
      );
      return [...rows.map((row) => row.ref), ...journal.rows.map((row) => row.call_key)];
    } finally {
      await pool.end();
    }
  }
  const hits: string[] = [];
  const walk = (directory: string) => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (statSync(path).isFile() && readFileSync(path).includes(MARKER)) hits.push(path);
    }
  };
  walk(setting.directory);
  return hits;
}

const TOKEN = randomBytes(32).toString('hex');

async function codecServer(keys: string): Promise<string> {
  const port = await freePort();
  const server = new CliProcess(['codec-server', '--port', String(port)], {
    ...environment(keys),
    AGENT_CODEC_AUTH: TOKEN,
  });
  processes.push(server);
  await server.waitFor('stdout', /codec server on/);
  return `http://127.0.0.1:${port}`;
}

// The temporal CLI sends X-Namespace (default here) with every request, and the token as given.
const show = (workflowId: string, codec?: string) =>
  run(process.env.TEMPORAL_CLI_PATH!, [
    'workflow',
    'show',
    '--workflow-id',
    workflowId,
    '--address',
    temporalAddress(),
    '--detailed',
    ...(codec ? ['--codec-endpoint', codec, '--codec-auth', `Bearer ${TOKEN}`] : []),
  ]).then(({ stdout }) => stdout);

test('with a key, neither history nor the store holds the session in plaintext; the codec server shows it; a rotated key still decrypts', async () => {
  let worker: ChildProcess = await harness.startWorkerProcess({ AGENT_ENCRYPTION_KEY: FIRST });
  const first = `encrypted-${randomBytes(4).toString('hex')}`;
  await session(FIRST, first);

  const history = await harness.client.workflow.getHandle(first).fetchHistory();
  const bytes = rawBytes(history);
  expect(bytes.length).toBeGreaterThan(100);
  expect(bytes.filter((value) => value.includes(MARKER))).toEqual([]);
  const inputs = history
    .events!.filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => event.activityTaskScheduledEventAttributes!.input!.payloads![0]!);
  expect(
    inputs.every(
      (payload) =>
        Buffer.from(payload.metadata!.encoding!).toString() === 'binary/encrypted' &&
        Buffer.from(payload.metadata!['encryption-key-id']!).toString() === 'k1',
    ),
  ).toBe(true);
  expect(await storeHits()).toEqual([]);
  expect(await show(first)).not.toContain(MARKER);
  expect(await show(first, await codecServer(FIRST))).toContain(MARKER);

  // A workflow started with the temporal CLI and plain JSON input, no codec on its side.
  await run(process.env.TEMPORAL_CLI_PATH!, [
    'workflow',
    'execute',
    '--address',
    temporalAddress(),
    '--task-queue',
    harness.taskQueue,
    '--type',
    'agentWorkflow',
    '--workflow-id',
    `plain-${first}`,
    '--input',
    JSON.stringify({
      prompt: 'Find the code word',
      workdir: makeRepo({ 'secret.txt': `the code word is ${MARKER}\n` }),
      toolSummaries: false,
    }),
  ]);
  const plain = harness.client.workflow.getHandle(`plain-${first}`);
  expect((await plain.describe()).status.name).toBe('COMPLETED');

  // Rotation: k2 encrypts from now on, k1 still decrypts the first session.
  await killProcess(worker);
  worker = await harness.startWorkerProcess({ AGENT_ENCRYPTION_KEY: `${SECOND},${FIRST}` });
  const second = `encrypted-${randomBytes(4).toString('hex')}`;
  await session(`${SECOND},${FIRST}`, second);
  const keyIds = (await harness.client.workflow.getHandle(second).fetchHistory())
    .events!.filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) =>
      Buffer.from(
        event.activityTaskScheduledEventAttributes!.input!.payloads![0]!.metadata!['encryption-key-id']!,
      ).toString(),
    );
  expect(new Set(keyIds)).toEqual(new Set(['k2']));
  const rotated = await codecServer(`${SECOND},${FIRST}`);
  expect(await show(first, rotated)).toContain(MARKER);
  expect(await show(second, rotated)).toContain(MARKER);
  const watched = durableAgent(['watch', first], `${SECOND},${FIRST}`);
  expect(await watched.exited).toBe(0);
  expect(watched.stdout.map((line) => line.text).join('\n')).toContain(`The file says ${MARKER}.`);
  expect(await storeHits()).toEqual([]);
  await killProcess(worker);
});

test("the codec server answers the UI's preflight for its origin only, and wants the bearer token", async () => {
  const port = await freePort();
  const server = new CliProcess(['codec-server', '--port', String(port)], {
    ...environment(FIRST),
    AGENT_CODEC_AUTH: TOKEN,
  });
  processes.push(server);
  await server.waitFor('stdout', /codec server on .*: bearer token required/);
  const url = `http://127.0.0.1:${port}/decode`;
  const preflight = await fetch(url, {
    method: 'OPTIONS',
    headers: { Origin: 'http://localhost:8233', 'Access-Control-Request-Method': 'POST' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
  const elsewhere = await fetch(url, { method: 'OPTIONS', headers: { Origin: 'https://evil.example' } });
  expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();

  expect((await fetch(url, { method: 'POST', body: PLAIN })).status).toBe(401);
  expect(
    (await fetch(url, { method: 'POST', body: PLAIN, headers: { Authorization: 'Bearer wrong-token' } })).status,
  ).toBe(401);
  expect((await fetch(url, { method: 'POST', body: PLAIN, headers: { Authorization: TOKEN } })).status).toBe(401);
  const encoded = await fetch(`http://127.0.0.1:${port}/encode`, {
    method: 'POST',
    body: PLAIN,
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  expect(encoded.status).toBe(200);
  const sealed = (await encoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
  expect(Buffer.from(sealed.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
  const decoded = await fetch(url, {
    method: 'POST',
    body: JSON.stringify(sealed),
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  expect(decoded.status).toBe(200);
  expect(((await decoded.json()) as { payloads: { data: string }[] }).payloads[0]!.data).toBe(
    Buffer.from('"hello"').toString('base64'),
  );
});

const PLAIN = JSON.stringify({
  payloads: [
    {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from('"hello"').toString('base64'),
    },
  ],
});

/** `durable-agent codec-server` as configured, with no token but what `token` says. */
function codecProcess(args: string[], token?: string, extra: NodeJS.ProcessEnv = {}): CliProcess {
  const { AGENT_CODEC_AUTH: _inherited, ...rest } = environment(FIRST);
  const server = new CliProcess(['codec-server', ...args], {
    ...rest,
    ...(token ? { AGENT_CODEC_AUTH: token } : {}),
    ...extra,
  });
  processes.push(server);
  return server;
}

const lines = (cli: CliProcess) => cli.stderr.map((line) => line.text).filter(Boolean);

describe('the codec server wants a token', () => {
  test('without AGENT_CODEC_AUTH it refuses to start, in one line naming the variable and the flag', async () => {
    const server = codecProcess(['--port', String(await freePort())]);
    expect(await server.exited).toBe(2);
    expect(lines(server)).toEqual([
      expect.stringMatching(/^durable-agent: .*set AGENT_CODEC_AUTH .*or pass --insecure-no-auth/),
    ]);
    expect(server.stdout).toEqual([]);
  });

  test('--insecure-no-auth refuses any --host but loopback: all interfaces, a LAN address, IPv6 all', async () => {
    for (const host of ['0.0.0.0', '192.168.1.20', '::']) {
      const server = codecProcess(['--insecure-no-auth', '--host', host, '--port', String(await freePort())]);
      expect(await server.exited).toBe(2);
      expect(lines(server)).toEqual([
        `durable-agent: --insecure-no-auth listens on loopback only, not --host ${host}: set AGENT_CODEC_AUTH to serve other machines`,
      ]);
    }
  });

  test('--insecure-no-auth on 127.0.0.1 starts, says so, and decrypts without a token', async () => {
    const port = await freePort();
    const server = codecProcess(['--insecure-no-auth', '--host', '127.0.0.1', '--port', String(port)]);
    await server.waitFor(
      'stdout',
      /codec server on http:\/\/127\.0\.0\.1:\d+: NO AUTHENTICATION \(--insecure-no-auth\)/,
    );
    const encoded = await fetch(`http://127.0.0.1:${port}/encode`, {
      method: 'POST',
      body: PLAIN,
      headers: { 'X-Namespace': 'default' },
    });
    expect(encoded.status).toBe(200);
  });

  test('a request without the token gets 401, with it 200; an X-Namespace not served gets 403', async () => {
    const port = await freePort();
    const server = codecProcess(
      ['--port', String(port), '--namespace', 'agents', '--namespace', 'agents-staging'],
      TOKEN,
    );
    await server.waitFor('stdout', /bearer token required .*; namespaces agents, agents-staging;/);
    const encode = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/encode`, { method: 'POST', body: PLAIN, headers });
    const bearer = { Authorization: `Bearer ${TOKEN}` };
    expect((await encode({ 'X-Namespace': 'agents' })).status).toBe(401);
    expect((await encode({ ...bearer, 'X-Namespace': 'agents' })).status).toBe(200);
    expect((await encode({ ...bearer, 'X-Namespace': 'agents-staging' })).status).toBe(200);
    const elsewhere = await encode({ ...bearer, 'X-Namespace': 'payments' });
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.json()).toEqual({
      message: expect.stringContaining('namespace "payments" is not served here (serving: agents, agents-staging)'),
    });
    // An unauthenticated caller learns nothing of the namespaces: the token comes first.
    expect((await encode({ 'X-Namespace': 'payments' })).status).toBe(401);
    // No X-Namespace at all (not the temporal CLI nor the UI): the token is what counts.
    expect((await encode(bearer)).status).toBe(200);
  });

  test('the namespaces default to TEMPORAL_NAMESPACE; AGENT_CODEC_NAMESPACES lists others', async () => {
    const port = await freePort();
    const server = codecProcess(['--port', String(port)], TOKEN, { TEMPORAL_NAMESPACE: 'team-a' });
    await server.waitFor('stdout', /; namespaces team-a;/);
    const listed = codecProcess(['--port', String(await freePort())], TOKEN, {
      TEMPORAL_NAMESPACE: 'team-a',
      AGENT_CODEC_NAMESPACES: 'team-b, team-c',
    });
    await listed.waitFor('stdout', /; namespaces team-b, team-c;/);
  });

  test('a browser signs in at /login with the token and then decodes with its cookie, as the Web UI does', async () => {
    const port = await freePort();
    const server = codecProcess(['--port', String(port)], TOKEN);
    await server.waitFor('stdout', /codec server on/);
    const login = `http://127.0.0.1:${port}/login`;
    const form = await fetch(login);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('<form method="post">');
    const wrong = await fetch(login, { method: 'POST', body: new URLSearchParams({ token: 'not-the-token-at-all' }) });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const signedIn = await fetch(login, { method: 'POST', body: new URLSearchParams({ token: TOKEN }) });
    expect(signedIn.status).toBe(200);
    const setCookie = signedIn.headers.get('set-cookie')!;
    expect(setCookie).toMatch(new RegExp(`^durable-agent-codec-${port}=[\\w-]+; HttpOnly; SameSite=Strict; Path=/$`));
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(';')[0]!;
    // What the UI's fetch sends with "include credentials": its origin, X-Namespace and the cookie.
    const decode = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/decode`, {
        method: 'POST',
        body: PLAIN,
        headers: { Origin: 'http://127.0.0.1:8233', 'X-Namespace': 'default', ...headers },
      });
    const decoded = await decode({ Cookie: `theme=dark; ${cookie}` });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');
    expect(decoded.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await decode({ Cookie: `${cookie.split('=')[0]}=forged` })).status).toBe(401);
  });
});
