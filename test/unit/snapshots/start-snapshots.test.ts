/**
 * The start snapshot kept by session: the first snapshot under a key is what every later one under
 * it returns (a run reset to its first task snapshots files the session changed since), with the
 * run that took it; other keys, and snapshots without a key, are taken as found.
 */
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { LocalEffectJournal } from '../../../src/store/effect-journal';
import { keptStartSnapshot } from '../../../src/snapshots/start-snapshots';
import { createWorkspaceActivities } from '../../../src/activities/workspace/workspace-activities';
import type { SnapshotWorkspaceInput, SnapshotWorkspaceOutput } from '../../../src/shared/workspace';
import { scratchDir } from '../../support/paths';
import { workspace } from './fixture';

function setup() {
  const files = workspace('start-snapshots');
  const journal = new LocalEffectJournal(join(scratchDir('start-snapshots-journal'), 'journal'));
  const activities = createWorkspaceActivities({ store: files.store, journal, workspaceRoots: [] });
  const snapshot = (input: SnapshotWorkspaceInput, runId: string) =>
    new MockActivityEnvironment({ workflowExecution: { workflowId: 'session', runId } }).run(
      activities.snapshotWorkspace,
      input,
    ) as Promise<SnapshotWorkspaceOutput>;
  return { files, journal, snapshot };
}

test('a start snapshot asked for again under its key is the one first taken, with the run that took it', async () => {
  const { files, snapshot } = setup();
  files.write('a.txt', 'before\n');
  const first = await snapshot({ workdir: files.workdir, startKey: 'session/run-1' }, 'run-1');
  expect(first).toMatchObject({ files: 1, filesChanged: 0, runId: 'run-1' });

  files.write('a.txt', 'changed by the session\n');
  files.write('b.txt', 'made by the session\n');
  expect(await snapshot({ workdir: files.workdir, startKey: 'session/run-1' }, 'run-2')).toEqual(first);
  const another = await snapshot({ workdir: files.workdir, startKey: 'session/run-3' }, 'run-3');
  expect(another.ref).not.toBe(first.ref);
  expect(another).toMatchObject({ files: 2, runId: 'run-3' });
});

test('a snapshot without a key is taken as found, names its run and keeps nothing', async () => {
  const { files, journal, snapshot } = setup();
  files.write('a.txt', 'one\n');
  const taken = await snapshot({ workdir: files.workdir }, 'run-1');
  expect(taken).toMatchObject({ files: 1, runId: 'run-1' });
  expect(await keptStartSnapshot(journal, 'session/run-1')).toBeUndefined();
});

test('an edit record filed under the same key is no start snapshot', async () => {
  const { journal } = setup();
  await journal.record('durable-agent:start-snapshots', 'session/run-1', {
    path: '/work/a.txt',
    beforeHash: null,
    afterHash: 'sha256:00',
    message: '{"ref":"sha256:00"}',
  });
  expect(await keptStartSnapshot(journal, 'session/run-1')).toBeUndefined();
});
