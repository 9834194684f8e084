/**
 * A Temporal reached only through TLS (a TLS-terminating proxy with a throwaway CA in front of
 * the dev server): the worker, our CLI and the `temporal` CLI configured by the same
 * TEMPORAL_TLS_* variables, or by the same profile file, reach the same server.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CliProcess } from '../support/cli-process';
import { byTurn, reply, text } from '../support/fake-anthropic';
import { Harness, makeRepo, temporalAddress } from '../support/harness';
import { scratchDir } from '../support/paths';
import { startTlsProxy, type TlsProxy } from '../support/tls-proxy';

jest.setTimeout(120_000);

const run = promisify(execFile);
let harness: Harness;
let proxy: TlsProxy;
let directory: string;

beforeAll(async () => {
  harness = await Harness.start();
  directory = scratchDir('tls');
  proxy = await startTlsProxy(directory, temporalAddress());
});
afterAll(async () => {
  await harness?.stop();
  await proxy?.close();
});

/** Only the connection settings differ from the plaintext harness: no TEMPORAL_ADDRESS of its own. */
function environment(connection: Record<string, string>): NodeJS.ProcessEnv {
  const { TEMPORAL_ADDRESS: _plaintext, ...rest } = process.env;
  return {
    ...rest,
    HOME: directory,
    AGENT_TASK_QUEUE: harness.taskQueue,
    ...harness.storeEnvironment(),
    ANTHROPIC_API_KEY: 'test-key',
    ...connection,
  };
}

async function durableAgent(args: string[], connection: Record<string, string>) {
  const cli = new CliProcess(args, environment(connection));
  const code = await cli.exited;
  return {
    code,
    stdout: cli.stdout.map((line) => line.text).join('\n'),
    stderr: cli.stderr.map((line) => line.text).join('\n'),
  };
}

test('worker and CLIs configured by TEMPORAL_TLS_* variables, or by a profile file, work through TLS', async () => {
  const variables = {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: proxy.caPath,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
  };
  const worker = harness.spawnWorker({ ...variables, HOME: directory });
  const started = await new Promise<string>((resolve, reject) => {
    let output = '';
    worker.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/durable-agent worker: task queue/.test(output)) resolve(output);
    });
    worker.once('exit', (code) => reject(new Error(`the worker exited (${code}) before polling:\n${output}`)));
  });
  expect(started).toContain(`on ${proxy.address} (TLS)`);
  expect(proxy.connections()).toBeGreaterThan(0);

  harness.fake.handler = byTurn([reply([text('Hello over TLS.')])]);
  const handle = await harness.start({ prompt: 'say hello', workdir: makeRepo({}), toolSummaries: false });
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Hello over TLS.' });

  const status = await durableAgent(['status', handle.workflowId], variables);
  expect(status).toMatchObject({ code: 0, stderr: '' });
  expect(status.stdout).toMatch(new RegExp(`^${handle.workflowId} +finished \\(completed\\)`, 'm'));
  const temporalCli = await run(
    process.env.TEMPORAL_CLI_PATH!,
    ['workflow', 'describe', '--workflow-id', handle.workflowId, '--output', 'json'],
    { env: environment(variables) },
  );
  expect(JSON.parse(temporalCli.stdout)).toMatchObject({
    workflowExecutionInfo: { execution: { workflowId: handle.workflowId } },
  });

  const profile = join(directory, 'temporal.toml');
  writeFileSync(
    profile,
    `[profile.through-tls]\naddress = "${proxy.address}"\n[profile.through-tls.tls]\nserver_ca_cert_path = "${proxy.caPath}"\nserver_name = "localhost"\n`,
  );
  const byProfile = { TEMPORAL_CONFIG_FILE: profile, TEMPORAL_PROFILE: 'through-tls' };
  const watched = await durableAgent(['watch', handle.workflowId], byProfile);
  expect(watched).toMatchObject({ code: 0 });
  expect(watched.stdout).toContain('Hello over TLS.');
  const described = await run(
    process.env.TEMPORAL_CLI_PATH!,
    ['workflow', 'describe', '--workflow-id', handle.workflowId, '--output', 'json'],
    { env: environment(byProfile) },
  );
  expect(JSON.parse(described.stdout)).toMatchObject({
    workflowExecutionInfo: { status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED' },
  });

  // Without the CA the server's certificate is not trusted: a clear failure, not a hang.
  const untrusted = await durableAgent(['status', handle.workflowId], {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS: 'true',
  });
  expect(untrusted.code).toBe(1);
  expect(untrusted.stderr).toContain(`durable-agent: cannot connect to Temporal at ${proxy.address} (TLS)`);
});
