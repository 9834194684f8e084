/**
 * The lease activities on a real directory and the file store: the key is the host and the real
 * path (a symlink to the workdir is the same workdir), the keeper renews until cancelled and
 * fails for good once another session took the lease over.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWorkdirLeaseActivities } from '../../../../src/activities/session/workdir-lease';
import { FileWorkdirLeases } from '../../../../src/activities/store/workdir-leases';
import type { TakeWorkdirLeaseOutput } from '../../../../src/shared/workdir-lease';
import { scratchDir } from '../../../support/paths';

const first = { workflowId: 'first', firstRunId: 'run-1' };
const second = { workflowId: 'second', firstRunId: 'run-2' };

function setUp() {
  const leases = new FileWorkdirLeases(scratchDir('leases'));
  const workdir = join(scratchDir('workdirs'), 'repo');
  mkdirSync(workdir);
  return { leases, workdir, activities: createWorkdirLeaseActivities({ leases, hostId: 'host-a', leaseMs: 60_000 }) };
}

test('the lease is keyed by host and real path: another spelling of the workdir finds it busy, naming the holder', async () => {
  const { workdir, activities } = setUp();
  const alias = join(scratchDir('aliases'), 'link');
  symlinkSync(workdir, alias);
  const env = new MockActivityEnvironment();
  expect(await env.run(activities.takeWorkdirLease, { workdir, holder: first })).toMatchObject({ taken: true, key: expect.stringMatching(/^host-a:\//) });
  expect(await env.run(activities.takeWorkdirLease, { workdir: alias, holder: second })).toMatchObject({ taken: false, holder: 'first', expiresAt: expect.any(String) });
  await expect(env.run(activities.takeWorkdirLease, { workdir: join(workdir, 'gone'), holder: second })).rejects.toMatchObject({ type: 'InvalidWorkdir', nonRetryable: true });
});

test('the keeper renews until the run ends (cancelled), and fails for good once another session took the lease over', async () => {
  const { leases, workdir, activities } = setUp();
  const taken = (await new MockActivityEnvironment().run(activities.takeWorkdirLease, { workdir, holder: first })) as TakeWorkdirLeaseOutput;
  const env = new MockActivityEnvironment();
  const keeping = env.run(activities.keepWorkdirLease, { key: taken.key, holder: first });
  // While it keeps the lease, it is the first session's.
  expect(await leases.take(taken.key, second, 60_000)).toMatchObject({ taken: false });
  env.cancel();
  await expect(keeping).rejects.toBeInstanceOf(CancelledFailure);

  await leases.release(taken.key, first);
  await leases.take(taken.key, second, 60_000);
  await expect(new MockActivityEnvironment().run(activities.keepWorkdirLease, { key: taken.key, holder: first })).rejects.toMatchObject({ type: 'WorkdirLeaseLost', nonRetryable: true });
  await new MockActivityEnvironment().run(activities.releaseWorkdirLease, { key: taken.key, holder: first });
  expect(await leases.take(taken.key, first, 60_000)).toMatchObject({ taken: false, holder: second });
});

test('a keeper that wakes after its session released the lease (its cancellation not yet delivered) ends quietly, not as a lost lease', async () => {
  const { leases, workdir, activities } = setUp();
  const taken = (await new MockActivityEnvironment().run(activities.takeWorkdirLease, { workdir, holder: first })) as TakeWorkdirLeaseOutput;
  await new MockActivityEnvironment().run(activities.releaseWorkdirLease, { key: taken.key, holder: first });
  await expect(new MockActivityEnvironment().run(activities.keepWorkdirLease, { key: taken.key, holder: first })).resolves.toBeUndefined();
  expect(await leases.take(taken.key, second, 60_000)).toEqual({ taken: true });
});
