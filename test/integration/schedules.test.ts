/**
 * Scheduled sessions, as docs/temporal-cli.md ("Scheduled sessions") starts them: `temporal schedule create`
 * for a `workdir` and for a `repo` session, `temporal schedule trigger`, and the workflow the
 * schedule started (its id ends with a timestamp with colons) runs to its result. The `repo`
 * session's branch is one git accepts, pushed to the remote.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentResult } from '../../src/shared/contract';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { bareRemote, git } from '../support/git-remote';
import { Harness, makeRepo, temporalAddress, uniqueId } from '../support/harness';

jest.setTimeout(180_000);

const run = promisify(execFile);
const temporal = (...args: string[]) => run(process.env.TEMPORAL_CLI_PATH!, [...args, '--address', temporalAddress()]);

let harness: Harness;
const schedules: string[] = [];
beforeAll(async () => {
  harness = await Harness.start(
    byTurn([reply([toolUse('Bash', { command: 'echo checked > checked.txt' })]), reply([text('Checked.')])]),
  );
  await harness.startWorker();
});
afterAll(async () => {
  for (const id of schedules) await temporal('schedule', 'delete', '--schedule-id', id).catch(() => undefined);
  await harness?.stop();
});

/** Creates a schedule of `agentWorkflow` that only runs when triggered (its cron names a day long past each run). */
async function createSchedule(workflowId: string, input: Record<string, unknown>): Promise<string> {
  const scheduleId = uniqueId(`${workflowId}-schedule`);
  await temporal(
    'schedule',
    'create',
    '--schedule-id',
    scheduleId,
    '--cron',
    '0 0 1 1 *',
    '--overlap-policy',
    'Skip',
    '--workflow-id',
    workflowId,
    '--task-queue',
    harness.taskQueue,
    '--type',
    'agentWorkflow',
    '--input',
    JSON.stringify(input),
  );
  schedules.push(scheduleId);
  return scheduleId;
}

/** Triggers the schedule and returns the result of the workflow it started. */
async function triggerAndAwait(scheduleId: string): Promise<{ workflowId: string; result: AgentResult }> {
  await temporal('schedule', 'trigger', '--schedule-id', scheduleId);
  const schedule = harness.client.schedule.getHandle(scheduleId);
  // The schedule records the start it made; the workflow is found by the id it gave it.
  let started: string | undefined;
  while (!started) {
    const { info } = await schedule.describe();
    started = info.recentActions[0]?.action.workflow.workflowId;
    if (!started) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const result = (await harness.client.workflow.getHandle(started).result()) as AgentResult;
  return { workflowId: started, result };
}

test('a scheduled workdir session runs when triggered', async () => {
  const workdir = makeRepo({ 'README.md': '# app\n' });
  const scheduleId = await createSchedule(uniqueId('nightly-check'), {
    prompt: 'Check the app',
    workdir,
    toolSummaries: false,
  });
  const { workflowId, result } = await triggerAndAwait(scheduleId);
  expect(workflowId).toMatch(/-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Checked.' });
  expect(readFileSync(join(workdir, 'checked.txt'), 'utf8')).toBe('checked\n');
});

test("a scheduled repo session runs when triggered: its branch is made safe from the schedule's id and pushed", async () => {
  const remote = bareRemote({ 'README.md': '# app\n' });
  const scheduleId = await createSchedule(uniqueId('repo-lint'), {
    prompt: 'Check the app',
    repo: { url: `file://${remote}`, ref: 'main' },
    toolSummaries: false,
  });
  const { workflowId, result } = await triggerAndAwait(scheduleId);
  expect(workflowId).toContain(':');
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Checked.', branch: { pushed: true } });
  const branch = result.branch!.name;
  expect(branch).toMatch(/^durable-agent\/repo-lint-[0-9a-f]+-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-[0-9a-f]{10}$/);
  expect(git(['--git-dir', remote, 'show', `${branch}:checked.txt`])).toBe('checked');
});
