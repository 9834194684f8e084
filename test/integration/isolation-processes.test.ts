/**
 * Issue 22's attacks on the control plane and on the worker's resources, against a real worker
 * process with AGENT_SANDBOX=bwrap: from Bash and from a stdio MCP server, every TCP service of
 * the host (Temporal's ports, the codec server, the metrics endpoint, PostgreSQL, the model API)
 * is out of reach, directly and through the egress proxy, while an allowed domain answers through
 * it; the codec server wants its token; a sub-agent type gets no more than its parent; a fork
 * bomb and a 4 GiB allocation fail as commands while the worker and a canary session go on.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { lastToolResults, reply, text, toolResultText, toolUse } from '../support/fake-anthropic';
import { freePort } from '../support/global-setup';
import { Harness, makeRepo, temporalAddress, waitForLine } from '../support/harness';
import { isolatedWorker, roleOf, RoleRouter, secrets, workerHome } from '../support/isolation';
import { mcpStdioServerBundle } from '../support/mcp-servers';
import { PROJECT_ROOT } from '../support/paths';

jest.setTimeout(240_000);

const secret = secrets();
const router = new RoleRouter();
const codecToken = randomBytes(32).toString('hex');
const encryptionKey = `k1:${randomBytes(32).toString('base64')}`;

/** `durable-agent <args>` with these variables; its exit code and output. */
function durableAgent(args: string[], environment: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'durable-agent.js'), ...args],
      { env: { ...process.env, ...environment }, timeout: 60_000 },
      (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    ),
  );
}
let harness: Harness;
let worker: ChildProcess;
let standIn: Server;
let codec: ChildProcess;
let ports: { name: string; port: number }[];

/** The results of every request of a role, in order. */
function resultsOf(role: string): { text: string; isError: boolean }[][] {
  return harness.fake.requests
    .filter((request) => roleOf(request) === role)
    .map((request) =>
      lastToolResults(request).map((block) => ({ text: toolResultText(block), isError: block.is_error === true })),
    )
    .filter((results) => results.length > 0);
}

/** 127.0.0.1, 0.0.0.0, :: and ::1 as /proc/net/tcp and tcp6 write them. */
const LOOPBACK_OR_ANY = new Set([
  '0100007F',
  '00000000',
  '00000000000000000000000000000000',
  '00000000000000000000000001000000',
]);

/** Every TCP port something listens on, on loopback or every address, as /proc/net/tcp lists them. */
function listeningPorts(): number[] {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue;
      const [address, port] = local.split(':');
      if (LOOPBACK_OR_ANY.has(address ?? '')) ports.add(parseInt(port!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

beforeAll(async () => {
  harness = await Harness.start(router.handler);
  standIn = createServer((_request, response) => response.end('stand-in registry'));
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  const metricsPort = await freePort();
  const codecPort = await freePort();
  codec = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin', 'durable-agent.js'), 'codec-server', '--port', String(codecPort)],
    {
      env: { ...process.env, AGENT_ENCRYPTION_KEY: encryptionKey, AGENT_CODEC_AUTH: codecToken },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await waitForLine(codec, /codec server on/);
  worker = await isolatedWorker(harness, secret, workerHome(secret), {
    AGENT_SANDBOX_ALLOWED_DOMAINS: `127.0.0.1:${(standIn.address() as AddressInfo).port}`,
    AGENT_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
  });
  const named = [
    { name: "Temporal's frontend (gRPC)", port: Number(temporalAddress().split(':').pop()) },
    { name: 'the codec server', port: codecPort },
    { name: 'the metrics endpoint', port: metricsPort },
    { name: 'the fake model API', port: Number(new URL(harness.fake.url).port) },
    ...(process.env.AGENT_TEST_POSTGRES_URL
      ? [{ name: 'PostgreSQL', port: Number(new URL(process.env.AGENT_TEST_POSTGRES_URL).port) }]
      : []),
  ];
  const standInPort = (standIn.address() as AddressInfo).port;
  // Every other listening port of the host too (Temporal's HTTP API and the rest of the dev server among them).
  ports = [
    ...named,
    ...listeningPorts()
      .filter((port) => port !== standInPort && !named.some((entry) => entry.port === port))
      .map((port) => ({ name: `port ${port}`, port })),
  ];
});

afterAll(async () => {
  codec?.kill('SIGKILL');
  standIn?.close();
  await harness.stop();
});

afterEach(() => {
  expect(worker.exitCode).toBeNull();
});

test('(4) from Bash: no host service is reachable, directly or through the proxy; an allowed domain answers through it', async () => {
  const standInPort = (standIn.address() as AddressInfo).port;
  const probe = [
    `for port in ${ports.map(({ port }) => port).join(' ')}; do`,
    '  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then direct=open; else direct=closed; fi',
    // --noproxy '': curl applies NO_PROXY (loopback, for the sandbox's own servers) even to -x.
    "  proxied=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --noproxy '' -x http://127.0.0.1:3128 http://127.0.0.1:$port/)",
    "  named=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --noproxy '' -x http://127.0.0.1:3128 http://localhost:$port/)",
    '  echo "$port $direct $proxied $named"',
    'done',
    `curl -s --max-time 5 --noproxy '' http://127.0.0.1:${standInPort}/; echo`,
    'echo "env: $(env | grep -c ANTHROPIC) $(cat /proc/1/environ 2>/dev/null | tr "\\0" "\\n" | grep -c ANTHROPIC)"',
  ].join('\n');
  router.set('net-bash', [reply([toolUse('Bash', { command: probe, timeout: 120_000 })]), reply([text('probed')])]);
  expect(await harness.run({ prompt: 'ROLE:net-bash', workdir: makeRepo({}), toolSummaries: false })).toMatchObject({
    reason: 'completed',
  });
  const output = resultsOf('net-bash')[0]![0]!.text;
  for (const { name, port } of ports) {
    // Direct: nothing but a loopback in the sandbox's namespace. Through the proxy: refused, by address or by name.
    expect({ name, line: output.split('\n').find((line) => line.startsWith(`${port} `)) }).toEqual({
      name,
      line: `${port} closed 403 403`,
    });
  }
  // The stand-in registry is on the worker's allow-list (as 127.0.0.1:<port>): the proxy takes curl there.
  expect(output).toContain('stand-in registry');
  expect(output).toContain('env: 0 0');
  expect(output).not.toContain(secret.apiKey);
});

test('(4) from a stdio MCP server in the sandbox: the same', async () => {
  const workdir = makeRepo({});
  const server = mcpStdioServerBundle(workdir);
  const standInPort = (standIn.address() as AddressInfo).port;
  router.set('net-mcp', [
    reply([toolUse('mcp__net__connect', { ports: [...ports.map(({ port }) => port), standInPort] })]),
    reply([text('connected')]),
  ]);
  const result = await harness.run({
    prompt: 'ROLE:net-mcp',
    workdir,
    toolSummaries: false,
    mcpServers: { net: { command: 'node', args: [server] } },
  });
  expect(result).toMatchObject({ reason: 'completed' });
  const reached = JSON.parse(resultsOf('net-mcp')[0]![0]!.text) as Record<string, { direct: boolean; proxy: number }>;
  for (const { name, port } of ports) expect({ name, ...reached[port] }).toEqual({ name, direct: false, proxy: 403 });
  expect(reached[standInPort]).toEqual({ direct: false, proxy: 200 });
});

test('(5) the codec server answers 401 without its token, and will not start unauthenticated beyond loopback', async () => {
  const port = Number(/--port (\d+)/.exec(codec.spawnargs.join(' '))?.[1]);
  const decode = (authorization?: string) =>
    new Promise<number>((resolve, reject) => {
      const asking = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/decode',
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      asking.once('error', reject);
      asking.end(JSON.stringify({ payloads: [] }));
    });
  expect(await decode()).toBe(401);
  expect(await decode('Bearer not-the-token-at-all')).toBe(401);
  expect(await decode(`Bearer ${codecToken}`)).toBe(200);
  const unauthenticated = await durableAgent(['codec-server', '--port', '0'], {
    AGENT_ENCRYPTION_KEY: encryptionKey,
    AGENT_CODEC_AUTH: '',
  });
  expect(unauthenticated).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/set AGENT_CODEC_AUTH .*or pass --insecure-no-auth/),
  });
  const open = await durableAgent(['codec-server', '--insecure-no-auth', '--host', '0.0.0.0', '--port', '0'], {
    AGENT_ENCRYPTION_KEY: encryptionKey,
    AGENT_CODEC_AUTH: '',
  });
  expect(open).toMatchObject({
    code: 2,
    stderr: expect.stringContaining('--insecure-no-auth listens on loopback only, not --host 0.0.0.0'),
  });
});

test('(7) a sub-agent type asking for Bash and Write under a parent without them gets neither', async () => {
  const workdir = makeRepo({ 'a.txt': 'a\n' });
  router.set('parent-7', [
    reply([toolUse('Task', { description: 'fix', prompt: 'ROLE:fixer-7', subagent_type: 'fixer' })]),
    reply([text('delegated')]),
  ]);
  // One call a turn: a failed Bash call cancels the calls after it in its response.
  router.set('fixer-7', [
    reply([toolUse('Bash', { command: 'touch pwned' })]),
    reply([toolUse('Write', { file_path: 'pwned.txt', content: 'x' })]),
    reply([text('fixed')]),
  ]);
  const result = await harness.run({
    prompt: 'ROLE:parent-7',
    workdir,
    toolSummaries: false,
    allowedTools: ['Read', 'Glob', 'Grep', 'Task'],
    agents: { fixer: { description: 'Fixes things', prompt: 'You fix.', tools: ['Read', 'Bash', 'Write'] } },
  });
  expect(result).toMatchObject({ reason: 'completed' });
  const childRequests = harness.fake.requests.filter((request) => roleOf(request) === 'fixer-7');
  for (const request of childRequests) expect((request.body.tools ?? []).map((tool) => tool.name)).toEqual(['Read']);
  expect(resultsOf('fixer-7').map(([result]) => result!.text)).toEqual([
    expect.stringContaining('No such tool available: Bash'),
    expect.stringContaining('No such tool available: Write'),
  ]);
  expect(readdirSync(workdir).sort()).toEqual(['a.txt']);
});

test('(10) a bounded fork bomb and a 4 GiB allocation fail as commands; the worker and a canary session go on', async () => {
  const bomb = [
    "python3 - <<'EOF'",
    'import os, sys, time',
    'count = 0',
    'try:',
    '    while count < 5000:',
    '        if os.fork() == 0:',
    '            time.sleep(120)',
    '            os._exit(0)',
    '        count += 1',
    'except OSError as error:',
    '    print(f"fork failed after {count}: {error}")',
    '    sys.exit(1)',
    'print(f"forked {count}")',
    'EOF',
  ].join('\n');
  router.set('bomb', [
    reply([toolUse('Bash', { command: bomb, timeout: 60_000 })]),
    reply([toolUse('Bash', { command: 'python3 -c "data = bytearray(4 * 1024 ** 3); print(len(data))"' })]),
    reply([text('bombed')]),
  ]);
  const canaryDir = makeRepo({ 'a.txt': 'a\n' });
  router.set('canary-10', [
    ...Array.from({ length: 8 }, () =>
      reply([toolUse('Read', { file_path: 'a.txt' }), toolUse('Bash', { command: 'echo tick >> ticks.txt' })]),
    ),
    reply([text('canary done')]),
  ]);
  const [bombed, canary] = await Promise.all([
    harness.run({ prompt: 'ROLE:bomb', workdir: makeRepo({}), toolSummaries: false }),
    harness.run({ prompt: 'ROLE:canary-10', workdir: canaryDir, toolSummaries: false }),
  ]);
  expect(bombed).toMatchObject({ reason: 'completed', finalText: 'bombed' });
  expect(canary).toMatchObject({ reason: 'completed', finalText: 'canary done' });
  expect(readFileSync(join(canaryDir, 'ticks.txt'), 'utf8')).toBe('tick\n'.repeat(8));
  const [[forks], [allocation]] = resultsOf('bomb');
  expect(forks).toMatchObject({
    isError: true,
    text: expect.stringMatching(/fork failed after \d+: \[Errno 11\] Resource temporarily unavailable/),
  });
  expect(Number(/fork failed after (\d+)/.exec(forks!.text)![1])).toBeLessThan(5000);
  expect(forks!.text).toContain('each command here is limited to');
  expect(allocation).toMatchObject({ isError: true, text: expect.stringContaining('MemoryError') });
  // The worker serves on: a new session starts and completes.
  router.set('after-10', [reply([text('still here')])]);
  expect(await harness.run({ prompt: 'ROLE:after-10', workdir: makeRepo({}), toolSummaries: false })).toMatchObject({
    reason: 'completed',
    finalText: 'still here',
  });
});
