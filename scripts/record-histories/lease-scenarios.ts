/**
 * The recorded paths of workdir leases: a session that finds its workdir leased by another, waits
 * on timers, takes the lease once it is released and runs; and one that keeps its lease across
 * continue-as-new. Recorded as `workdir-lease-*` with a keeper per run (`patched('workdir-lease')`),
 * and as `lease-until-end-workdir-lease-*` with the lease taken by prepareSession and released by
 * closeSession (`patched('workdir-lease-until-session-end')`).
 */
import { realpathSync } from 'node:fs';
import type { LeaseHolder } from '../../src/store/workdir-leases';
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import { type Scenario, stateWhere } from './scenario';

/** The session that holds the workdir before the recorded one starts (taken in the store directly). */
const OTHER_SESSION: LeaseHolder = { workflowId: 'nightly-check-2026-12-01T02:00:00Z', firstRunId: 'other-run' };
let heldKey = '';

const twoTurns = byTurn([
  reply([toolUse('Bash', { command: 'echo checked > checked.txt' })]),
  reply([text('Checked.')]),
]);

export const leaseScenarios: Scenario[] = [
  {
    name: 'workdir-lease-wait',
    files: { 'README.md': '# app\n' },
    handler: twoTurns,
    async prepareInput(harness, workdir) {
      // One worker with no host id: the lease key is ":<real path>".
      heldKey = `:${realpathSync(workdir!)}`;
      await harness.store.leases.take(heldKey, OTHER_SESSION, 600_000);
      return { toolSummaries: false, onBusyWorkdir: 'wait' };
    },
    async drive(handle, harness) {
      await stateWhere(handle, (state) => state.status === 'waiting_workdir');
      await harness.store.leases.release(heldKey, OTHER_SESSION);
    },
  },
  {
    name: 'workdir-lease-continue-as-new',
    files: { 'README.md': '# app\n' },
    handler: byTurn([
      reply([toolUse('Bash', { command: 'echo 1 > one.txt' })]),
      reply([toolUse('Bash', { command: 'echo 2 > two.txt' })]),
      reply([text('Done.')]),
    ]),
    input: { toolSummaries: false, continueAsNewAfterTurns: 1 },
  },
];
