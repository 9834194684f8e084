/**
 * Safe deploys under Worker Versioning: two worker builds of one deployment side by side. A
 * session started on build 1 stays on build 1 (its turns after the rollout too) while a session
 * started after build 2 became current runs on build 2.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import type { AgentState } from '../../src/shared/contract';
import { reply, text, turnOf } from '../support/fake-anthropic';
import { Harness, makeRepo, temporalAddress, uniqueId, waitForLine } from '../support/harness';

jest.setTimeout(180_000);

const run = promisify(execFile);
let harness: Harness;
beforeAll(async () => {
  harness = await Harness.start((request) => reply([text(`answer ${turnOf(request) + 1}`)]));
});
afterAll(async () => {
  await harness?.stop();
});

/** The worker processes (pid) that completed the session's workflow tasks and ran its activities. */
async function processes(workflowId: string): Promise<Set<string>> {
  const events = (await harness.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const identities = events.flatMap((event) => [
    event.workflowTaskCompletedEventAttributes?.identity,
    event.activityTaskStartedEventAttributes?.identity,
  ]);
  return new Set(
    identities
      .filter((identity): identity is string => Boolean(identity))
      .map((identity) => identity.split('/').at(-1)!),
  );
}

async function state(workflowId: string, until: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const current = await harness.client.workflow.getHandle(workflowId).query<AgentState>('state');
    if (until(current)) return current;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a session stays on the build it started on while new sessions run on the new current build', async () => {
  const deployment = uniqueId('deploy');
  const one = harness.spawnWorker({ AGENT_WORKER_DEPLOYMENT: deployment, AGENT_BUILD_ID: 'build-1' });
  await waitForLine(
    one,
    new RegExp(`version ${deployment}:build-1, sessions pinned to the version they start on; the current version`),
  );

  const before = await harness.start({
    prompt: 'first',
    workdir: makeRepo({}),
    interactive: true,
    toolSummaries: false,
  });
  await state(before.workflowId, (current) => current.status === 'waiting_input');

  const two = harness.spawnWorker({ AGENT_WORKER_DEPLOYMENT: deployment, AGENT_BUILD_ID: 'build-2' });
  await waitForLine(
    two,
    new RegExp(
      `version ${deployment}:build-2, .*new sessions go to the current version until this one is made current`,
    ),
  );
  // The rollout, as docs/production.md tells operators to do it.
  await run(process.env.TEMPORAL_CLI_PATH!, [
    'worker',
    'deployment',
    'set-current-version',
    '--address',
    temporalAddress(),
    '--deployment-name',
    deployment,
    '--build-id',
    'build-2',
    '--yes',
  ]);

  const after = await harness.start({ prompt: 'second', workdir: makeRepo({}), toolSummaries: false });
  expect(await after.result()).toMatchObject({ reason: 'completed', finalText: 'answer 1' });

  // The first session's next turn, after the rollout: still build 1.
  await before.signal('userMessage', { text: 'and again' });
  await state(before.workflowId, (current) => current.turn === 2 && current.status === 'waiting_input');
  await before.signal('end');
  expect(await before.result()).toMatchObject({ reason: 'completed', finalText: 'answer 2' });

  expect(await processes(before.workflowId)).toEqual(new Set([String(one.pid)]));
  expect(await processes(after.workflowId)).toEqual(new Set([String(two.pid)]));
  const pinned = (await before.describe()).raw.workflowExecutionInfo?.versioningInfo;
  expect(pinned?.deploymentVersion?.buildId ?? pinned?.version).toMatch(/build-1$/);
  expect(pinned?.behavior).toBe(temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
});
