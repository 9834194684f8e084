/**
 * What every store's workdir leases must do, run against the file store (unit tests) and
 * PostgreSQL (test/integration/postgres-store.test.ts). An expired lease is made by taking it
 * for 0 ms: no test waits for a clock.
 */
import type { LeaseHolder, WorkdirLeases } from '../../src/store/workdir-leases';

const first: LeaseHolder = { workflowId: 'nightly-check-1', firstRunId: 'run-a' };
const second: LeaseHolder = { workflowId: 'nightly-check-2', firstRunId: 'run-b' };
const MINUTE = 60_000;

export function describeWorkdirLeases(name: string, open: () => WorkdirLeases): void {
  describe(`${name}: workdir leases`, () => {
    let key = 0;
    const nextKey = () => `host-a:/work/repo-${++key}`;

    test('one holder at a time: the second is told who holds it, until it is released', async () => {
      const leases = open();
      const workdir = nextKey();
      expect(await leases.take(workdir, first, MINUTE)).toEqual({ taken: true });
      expect(await leases.take(workdir, second, MINUTE)).toMatchObject({
        taken: false,
        holder: first,
        expiresAt: expect.any(Number),
      });
      // Another workdir is another lease.
      expect(await leases.take(nextKey(), second, MINUTE)).toEqual({ taken: true });
      await leases.release(workdir, first);
      expect(await leases.take(workdir, second, MINUTE)).toEqual({ taken: true });
    });

    test('the holder takes its own lease again (a retry, a continue-as-new) and renews it', async () => {
      const leases = open();
      const workdir = nextKey();
      await leases.take(workdir, first, MINUTE);
      expect(await leases.take(workdir, first, MINUTE)).toEqual({ taken: true });
      expect(await leases.renew(workdir, first, MINUTE)).toBe('renewed');
      expect(await leases.take(workdir, second, MINUTE)).toMatchObject({ taken: false, holder: first });
    });

    test('a reused workflow id is another session: it does not inherit the lease', async () => {
      const leases = open();
      const workdir = nextKey();
      await leases.take(workdir, first, MINUTE);
      expect(await leases.take(workdir, { ...first, firstRunId: 'run-c' }, MINUTE)).toMatchObject({
        taken: false,
        holder: first,
      });
    });

    test('an expired lease is taken over; its old holder can no longer renew it, nor release it from the new one', async () => {
      const leases = open();
      const workdir = nextKey();
      await leases.take(workdir, first, 0);
      expect(await leases.take(workdir, second, MINUTE)).toEqual({ taken: true });
      expect(await leases.renew(workdir, first, MINUTE)).toBe('lost');
      await leases.release(workdir, first);
      expect(await leases.take(workdir, first, MINUTE)).toMatchObject({ taken: false, holder: second });
    });

    test('a released lease is not renewed back to life: its keeper learns it was released, then lost once another takes it', async () => {
      const leases = open();
      const workdir = nextKey();
      await leases.take(workdir, first, MINUTE);
      await leases.release(workdir, first);
      expect(await leases.renew(workdir, first, MINUTE)).toBe('released');
      expect(await leases.take(workdir, second, MINUTE)).toEqual({ taken: true });
      expect(await leases.renew(workdir, first, MINUTE)).toBe('lost');
    });

    test("a holder found ended is taken over, once, keeping the taker's namespace; a lease that changed hands meanwhile is not", async () => {
      const leases = open();
      const workdir = nextKey();
      const third: LeaseHolder = { workflowId: 'nightly-check-3', firstRunId: 'run-c', namespace: 'agents' };
      await leases.take(workdir, { ...first, namespace: 'agents' }, MINUTE);
      expect(await leases.take(workdir, second, MINUTE)).toMatchObject({
        taken: false,
        holder: { ...first, namespace: 'agents' },
      });
      const racing = await Promise.all([
        leases.takeOver(workdir, first, second, MINUTE),
        leases.takeOver(workdir, first, third, MINUTE),
      ]);
      expect(racing.filter((outcome) => outcome.taken)).toHaveLength(1);
      const winner = racing[0]!.taken ? second : third;
      // The loser is told who has it now; the winner's namespace is recorded with it.
      expect(racing.find((outcome) => !outcome.taken)).toMatchObject({ holder: { workflowId: winner.workflowId } });
      expect(await leases.take(workdir, first, MINUTE)).toMatchObject({ taken: false, holder: winner });
      // From a holder that released it: free, so taken.
      await leases.release(workdir, winner);
      expect(await leases.takeOver(workdir, winner, first, MINUTE)).toEqual({ taken: true });
    });

    test('of many sessions taking a free lease at once, exactly one gets it', async () => {
      const leases = open();
      const workdir = nextKey();
      const holders = Array.from({ length: 8 }, (_, index) => ({ workflowId: `racer-${index}`, firstRunId: 'run' }));
      const outcomes = await Promise.all(holders.map((holder) => leases.take(workdir, holder, MINUTE)));
      expect(outcomes.filter((outcome) => outcome.taken)).toHaveLength(1);
    });
  });
}
