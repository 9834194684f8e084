/**
 * What an operator sees of sessions through Temporal itself, on a real dev server and worker: a
 * running command's heartbeat details in `describe` (plain JSON, or encrypted with a key set),
 * a terminated session that `list` and `status` never read as running, and the summary of a
 * session our CLI started.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { agentDataConverter } from '../../src/temporal/data-converter';
import { ENCRYPTED_ENCODING } from '../../src/encryption/encryption-codec';
import { parseKeys } from '../../src/encryption/keys';
import type { CallDetails } from '../../src/activities/heartbeat';
import { AGENT_STATUS } from '../../src/shared/search-attributes';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, Harness, makeRepo, temporalAddress, uniqueId } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

/** A workdir where the command waits for a file the test creates (a FIFO's writer could wait on a dead reader). */
function gatedWorkdir(): { workdir: string; release: () => void } {
  const workdir = makeRepo({});
  return { workdir, release: () => writeFileSync(join(workdir, 'released'), '') };
}

const GATED_COMMAND =
  'echo "building…"; echo "step 1 of 3"; while [ ! -e released ]; do sleep 0.1; done; echo "step 2 of 3"';

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The pending activities' heartbeat details as `describe` returns them, decoded with `client`'s data converter. */
async function pendingDetails(client: Client, handle: WorkflowHandle) {
  const { raw } = await handle.describe();
  return Promise.all(
    (raw.pendingActivities ?? []).map(async (activity) => {
      const payloads = activity.heartbeatDetails?.payloads ?? [];
      const [details] = await decodeArrayFromPayloads(client.options.loadedDataConverter, payloads);
      const encoding = payloads[0]?.metadata?.encoding;
      return {
        type: activity.activityType?.name,
        encoding: encoding ? Buffer.from(encoding).toString() : undefined,
        details: details as CallDetails | undefined,
      };
    }),
  );
}

/** Waits until the running command's heartbeats say it printed `line`. */
function runningCommand(client: Client, handle: WorkflowHandle, line: string) {
  return until(async () => {
    const activities = await pendingDetails(client, handle);
    return activities.find((activity) => activity.details?.lastLine === line);
  });
}

test('describe of a running command shows its summary and last line, as plain JSON the UI shows as it is', async () => {
  const { workdir, release } = gatedWorkdir();
  const bash = toolUse('Bash', { command: GATED_COMMAND, description: 'Build in three steps' });
  harness.fake.handler = byTurn([reply([bash]), reply([text('Built.')])]);
  const handle = await harness.start({ prompt: 'build it', workdir, toolSummaries: false });
  try {
    const running = await runningCommand(harness.client, handle, 'step 1 of 3');
    expect(running).toEqual({
      type: 'runTool',
      encoding: 'json/plain',
      details: {
        tool: 'Bash',
        summary: `Bash ${GATED_COMMAND}`,
        elapsedMs: expect.any(Number),
        lastLine: 'step 1 of 3',
      },
    });
    // Our status reads the same details.
    const status = await harness.cli(['status', handle.workflowId]);
    expect(status.stdout).toContain(`  progress: Bash ${GATED_COMMAND} · `);
    expect(status.stdout).toMatch(/ · \d+ s · step 1 of 3$/m);
  } finally {
    release();
  }
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Built.' });
});

test("describe of a running Stop hook shows the hook's command and its last line", async () => {
  const { workdir, release } = gatedWorkdir();
  const hook = 'echo "checking 2 files"; while [ ! -e released ]; do sleep 0.1; done';
  harness.fake.handler = byTurn([reply([text('Done.')])]);
  const handle = await harness.start({
    prompt: 'say done',
    workdir,
    toolSummaries: false,
    stopHooks: [{ command: hook }],
  });
  try {
    const running = await runningCommand(harness.client, handle, 'checking 2 files');
    expect(running).toMatchObject({ type: 'runStopHooks', details: { tool: 'Stop hook', summary: hook } });
  } finally {
    release();
  }
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
});

test('with payload encryption, heartbeat details are encrypted and a client with the key reads them', async () => {
  const keys = parseKeys(`k-ops:${randomBytes(32).toString('base64')}`);
  const encrypted = await Harness.start();
  const connection = await Connection.connect({ address: temporalAddress() });
  const { workdir, release } = gatedWorkdir();
  try {
    await encrypted.startWorker({ encryption: keys });
    const client = new Client({ connection, dataConverter: agentDataConverter(encrypted.store, keys) });
    encrypted.fake.handler = byTurn([reply([toolUse('Bash', { command: GATED_COMMAND })]), reply([text('Built.')])]);
    const handle = await client.workflow.start('agentWorkflow', {
      taskQueue: encrypted.taskQueue,
      workflowId: uniqueId('encrypted-ops'),
      args: [{ prompt: 'build it', workdir, toolSummaries: false }],
    });
    const running = await runningCommand(client, handle, 'step 1 of 3');
    expect(running.encoding).toBe(ENCRYPTED_ENCODING);
    expect(running.details).toMatchObject({ tool: 'Bash', summary: `Bash ${GATED_COMMAND}` });
    release();
    expect(await handle.result()).toMatchObject({ reason: 'completed' });
  } finally {
    release();
    await connection.close();
    await encrypted.stop();
  }
});

/** The workflow ids `durable-agent list --status <status>` prints. */
async function listedIds(status: string): Promise<string[]> {
  const listed = await harness.cli(['list', '--status', status, '--json', '--limit', '100']);
  return (JSON.parse(listed.stdout) as { workflowId: string }[]).map((row) => row.workflowId);
}

test('a session terminated while it runs a command reads as terminated in list and status, never as running', async () => {
  const { workdir, release } = gatedWorkdir();
  harness.fake.handler = byTurn([reply([toolUse('Bash', { command: GATED_COMMAND })]), reply([text('Built.')])]);
  const handle = await harness.start({ prompt: 'build it', workdir, toolSummaries: false });
  try {
    await runningCommand(harness.client, handle, 'step 1 of 3');
    const agentStatus = async () => (await handle.describe()).typedSearchAttributes.get(AGENT_STATUS);
    await until(async () => ((await agentStatus()) === 'running_tools' ? true : undefined));
    await handle.terminate('an operator stopped it');
    // Visibility follows the close a moment later; AgentStatus stays what the workflow last set.
    const query = `WorkflowId='${handle.workflowId}' AND ExecutionStatus='Terminated'`;
    await until(async () => {
      for await (const workflow of harness.client.workflow.list({ query })) return workflow;
      return undefined;
    });
    expect(await agentStatus()).toBe('running_tools');

    const status = await harness.cli(['status', handle.workflowId]);
    expect(status.code).toBe(0);
    expect(status.stdout.split('\n')[1]).toMatch(new RegExp(`^${handle.workflowId} +terminated\\b`));
    const json = await harness.cli(['status', handle.workflowId, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'terminated', workflowStatus: 'TERMINATED' });

    const listed = await harness.cli(['list', '--json', '--limit', '100']);
    const rows = JSON.parse(listed.stdout) as { workflowId: string; status: string }[];
    expect(rows.find((row) => row.workflowId === handle.workflowId)).toMatchObject({ status: 'terminated' });
    expect(await listedIds('running_tools')).not.toContain(handle.workflowId);
    expect(await listedIds('terminated')).toContain(handle.workflowId);
  } finally {
    release();
  }
});

test("a session our CLI starts has its prompt's first line as the UI's summary", async () => {
  harness.fake.handler = byTurn([reply([text('Renamed.')])]);
  const workflowId = uniqueId('summary');
  const prompt = `Rename parseConfig to loadConfig everywhere, ${'in every package '.repeat(5)}\nThen run the tests.`;
  const run = await harness.cli(['run', '--no-worker', '--workdir', makeRepo({}), '--workflow-id', workflowId, prompt]);
  expect(run.code).toBe(0);
  const summary = await (await harness.client.workflow.getHandle(workflowId).describe()).staticSummary();
  expect(summary).toBe(`${prompt.split('\n')[0]!.slice(0, 79)}…`);
});
