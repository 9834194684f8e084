/**
 * A worker killed with SIGKILL while a rewind puts thousands of files back: a new worker resumes
 * the restore and the rewind completes exactly once (one restore in history, one `rewind`
 * transition, the update answered once), with every file as in the turn's snapshot.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentState } from '../../src/shared/contract';
import { rewindUpdate, stateQuery, transcriptQuery } from '../../src/workflows/definitions';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { Harness, killProcess, makeRepo } from '../support/harness';

jest.setTimeout(240_000);

const FILES = 3000;
let harness: Harness;

afterEach(async () => {
  await harness?.stop();
});

test('SIGKILL during a rewind: the new worker completes it exactly once', async () => {
  harness = await Harness.start();
  harness.fake.handler = byTurn([
    reply([
      toolUse('Bash', { command: `mkdir -p gen && for i in $(seq ${FILES}); do echo "file $i" > gen/f$i.txt; done` }),
    ]),
    reply([toolUse('Bash', { command: 'rm -rf gen && echo gone > gone.txt' })]),
    reply([text('Generated and removed.')]),
  ]);
  const workdir = makeRepo({ 'README.md': '# repo\n' });
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'Generate, then remove', workdir, interactive: true });
  for (
    let state: AgentState | undefined;
    state?.status !== 'waiting_input';
    await new Promise((resolve) => setTimeout(resolve, 100))
  ) {
    state = await handle.query(stateQuery);
  }

  // Back to turn 1: every generated file is written again, long enough to be killed half-way.
  const rewind = handle.executeUpdate(rewindUpdate, { args: [{ turn: 1 }] });
  for (;;) {
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    if (pending.some((activity) => activity.activityType?.name === 'restoreWorkspace')) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await killProcess(first);
  await harness.startWorkerProcess();

  expect(await rewind).toMatchObject({ turn: 1, notRestored: [] });
  const generated = readdirSync(join(workdir, 'gen'));
  expect(generated).toHaveLength(FILES);
  expect(readFileSync(join(workdir, 'gen', 'f1234.txt'), 'utf8')).toBe('file 1234\n');
  expect(readdirSync(workdir).sort()).toEqual(['README.md', 'gen']);

  const history = await handle.fetchHistory();
  const restores = history.events!.filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'restoreWorkspace',
  );
  expect(restores).toHaveLength(1);
  const restoreStarted = history.events!.find(
    (event) =>
      event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === restores[0]!.eventId?.toString(),
  );
  // The first attempt died with its worker; the second resumed it.
  expect(restoreStarted?.activityTaskStartedEventAttributes?.attempt).toBeGreaterThanOrEqual(2);
  const { entries } = await handle.query(transcriptQuery, { limit: 1000 });
  expect(entries.filter((entry) => entry.type === 'transition' && entry.transition === 'rewind')).toHaveLength(1);
  await handle.signal('end');
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
});
