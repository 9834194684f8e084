/**
 * When Temporal's answer frees a workdir: only when it is sure the lease's holder has ended.
 */
import { type DescribedRun, holderLiveness } from '../../../../src/activities/session/lease-holder-liveness';

const holder = { workflowId: 'refactor-1', firstRunId: 'run-a' };
const answer = (described: DescribedRun | Error) => async () => {
  if (described instanceof Error) throw described;
  return described;
};

test.each([
  ['its run still runs', { running: true, firstRunId: 'run-a' }, false],
  ['its run (or a run it continued as new into) has closed', { running: false, firstRunId: 'run-a' }, true],
  [
    'the id now belongs to another session that runs (the holder ended before it could start)',
    { running: true, firstRunId: 'run-b' },
    true,
  ],
  ['an older server that names no first run: running', { running: true, firstRunId: '' }, false],
  ['an older server that names no first run: closed', { running: false, firstRunId: '' }, true],
  ['Temporal no longer knows it (past its retention)', 'not_found', true],
] as const)('recorded namespace, %s', async (_case, described, ended) => {
  const asked: string[] = [];
  const liveness = await holderLiveness(
    { ...holder, namespace: 'agents' },
    'default',
    async (namespace, workflowId) => {
      asked.push(`${namespace}/${workflowId}`);
      return described;
    },
  );
  expect(liveness.ended).toBe(ended);
  expect(asked).toEqual(['agents/refactor-1']);
});

test.each([
  ['its own chain closed', { running: false, firstRunId: 'run-a' }, true],
  ['its own chain runs', { running: true, firstRunId: 'run-a' }, false],
  ['another chain of that id (it may be another namespace’s session)', { running: false, firstRunId: 'run-b' }, false],
  ['unknown here (it may run in another namespace)', 'not_found', false],
] as const)('a lease from before namespaces were recorded, asked in our own: %s', async (_case, described, ended) => {
  expect((await holderLiveness(holder, 'default', answer(described))).ended).toBe(ended);
});

test('Temporal unreachable: busy, saying so', async () => {
  expect(
    await holderLiveness({ ...holder, namespace: 'agents' }, 'default', answer(new Error('connection refused'))),
  ).toEqual({
    ended: false,
    unverified: 'asking Temporal about it failed: connection refused',
  });
});
