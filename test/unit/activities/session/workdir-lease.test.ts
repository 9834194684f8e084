/**
 * The lease activities on a real directory and the file store: the key is the host and the real
 * path (a symlink to the workdir is the same workdir); a lease whose holder Temporal says has
 * ended is taken over (Temporal here: a table of what runs); the keeper of a lease from before
 * renews until cancelled and fails for good once another session took the lease over.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWorkdirLeaseActivities } from '../../../../src/activities/session/workdir-lease';
import { FileWorkdirLeases } from '../../../../src/store/workdir-leases';
import type { DescribedRun } from '../../../../src/activities/session/lease-holder-liveness';
import type { TakeWorkdirLeaseOutput } from '../../../../src/shared/workdir-lease';
import { scratchDir } from '../../../support/paths';

const first = { workflowId: 'first', firstRunId: 'run-1' };
const second = { workflowId: 'second', firstRunId: 'run-2' };

function setUp() {
  const leases = new FileWorkdirLeases(scratchDir('leases'));
  const workdir = join(scratchDir('workdirs'), 'repo');
  mkdirSync(workdir);
  // What Temporal says of each workflow id: the sessions above run unless a test ends them.
  const temporal = new Map<string, DescribedRun>([
    ['first', { running: true, firstRunId: 'run-1' }],
    ['second', { running: true, firstRunId: 'run-2' }],
  ]);
  const asked: string[] = [];
  const describe = async (namespace: string, workflowId: string) => {
    asked.push(`${namespace}/${workflowId}`);
    return temporal.get(workflowId) ?? 'not_found';
  };
  return {
    leases,
    workdir,
    temporal,
    asked,
    activities: createWorkdirLeaseActivities({ leases, hostId: 'host-a', leaseMs: 60_000, describe }),
  };
}

test('a session-long lease is busy while its holder runs, and taken over once Temporal says it ended (terminated, failed: it never released it)', async () => {
  const { workdir, temporal, asked, activities } = setUp();
  const env = new MockActivityEnvironment();
  const holder = { ...first, namespace: 'default' };
  expect(await env.run(activities.takeWorkdirLease, { workdir, holder, untilSessionEnd: true as const })).toMatchObject(
    { taken: true, until: 'session_end' },
  );
  // No expiry to report: it lasts until its session ends.
  const busy = await env.run(activities.takeWorkdirLease, {
    workdir,
    holder: { ...second, namespace: 'default' },
    untilSessionEnd: true as const,
  });
  expect(busy).toEqual({ taken: false, key: expect.any(String), holder: 'first' });
  expect(asked).toEqual(['default/first']);
  temporal.set('first', { running: false, firstRunId: 'run-1' });
  expect(
    await env.run(activities.takeWorkdirLease, {
      workdir,
      holder: { ...second, namespace: 'default' },
      untilSessionEnd: true as const,
    }),
  ).toMatchObject({ taken: true, until: 'session_end' });
  // The holder's own retry (its prepareSession again) is not a take-over: it is the second's now.
  expect(await env.run(activities.takeWorkdirLease, { workdir, holder, untilSessionEnd: true as const })).toMatchObject(
    { taken: false, holder: 'second' },
  );
});

test('a holder Temporal cannot answer for keeps the workdir, and the busy answer says why', async () => {
  const { workdir, temporal, activities } = setUp();
  const env = new MockActivityEnvironment();
  // Taken before holders recorded their namespace, by a session Temporal does not know here.
  const stranger = { workflowId: 'stranger', firstRunId: 'run-9' };
  await env.run(activities.takeWorkdirLease, { workdir, holder: stranger, untilSessionEnd: true as const });
  expect(
    await env.run(activities.takeWorkdirLease, { workdir, holder: second, untilSessionEnd: true as const }),
  ).toMatchObject({
    taken: false,
    holder: 'stranger',
    unverified: 'Temporal does not know it in namespace default',
  });
  temporal.set('stranger', { running: false, firstRunId: 'run-9' });
  expect(
    await env.run(activities.takeWorkdirLease, { workdir, holder: second, untilSessionEnd: true as const }),
  ).toMatchObject({ taken: true });
});

test('the lease is keyed by host and real path: another spelling of the workdir finds it busy, naming the holder', async () => {
  const { workdir, activities } = setUp();
  const alias = join(scratchDir('aliases'), 'link');
  symlinkSync(workdir, alias);
  const env = new MockActivityEnvironment();
  expect(await env.run(activities.takeWorkdirLease, { workdir, holder: first })).toMatchObject({
    taken: true,
    key: expect.stringMatching(/^host-a:\//),
  });
  expect(await env.run(activities.takeWorkdirLease, { workdir: alias, holder: second })).toMatchObject({
    taken: false,
    holder: 'first',
    expiresAt: expect.any(String),
  });
  await expect(
    env.run(activities.takeWorkdirLease, { workdir: join(workdir, 'gone'), holder: second }),
  ).rejects.toMatchObject({ type: 'InvalidWorkdir', nonRetryable: true });
});

test('the keeper renews until the run ends (cancelled), and fails for good once another session took the lease over', async () => {
  const { leases, workdir, activities } = setUp();
  const taken = (await new MockActivityEnvironment().run(activities.takeWorkdirLease, {
    workdir,
    holder: first,
  })) as TakeWorkdirLeaseOutput;
  const env = new MockActivityEnvironment();
  const keeping = env.run(activities.keepWorkdirLease, { key: taken.key, holder: first });
  // While it keeps the lease, it is the first session's.
  expect(await leases.take(taken.key, second, 60_000)).toMatchObject({ taken: false });
  env.cancel();
  await expect(keeping).rejects.toBeInstanceOf(CancelledFailure);

  await leases.release(taken.key, first);
  await leases.take(taken.key, second, 60_000);
  await expect(
    new MockActivityEnvironment().run(activities.keepWorkdirLease, { key: taken.key, holder: first }),
  ).rejects.toMatchObject({ type: 'WorkdirLeaseLost', nonRetryable: true });
  await new MockActivityEnvironment().run(activities.releaseWorkdirLease, { key: taken.key, holder: first });
  expect(await leases.take(taken.key, first, 60_000)).toMatchObject({ taken: false, holder: second });
});

test('a keeper that wakes after its session released the lease (its cancellation not yet delivered) ends quietly, not as a lost lease', async () => {
  const { leases, workdir, activities } = setUp();
  const taken = (await new MockActivityEnvironment().run(activities.takeWorkdirLease, {
    workdir,
    holder: first,
  })) as TakeWorkdirLeaseOutput;
  await new MockActivityEnvironment().run(activities.releaseWorkdirLease, { key: taken.key, holder: first });
  await expect(
    new MockActivityEnvironment().run(activities.keepWorkdirLease, { key: taken.key, holder: first }),
  ).resolves.toBeUndefined();
  expect(await leases.take(taken.key, second, 60_000)).toEqual({ taken: true });
});
