/** TodoWrite as users watch it: the model's plan in `state`, kept when the session continues as new. */
import type { AgentState } from '../../src/shared/contract';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

const plan = [
  { content: 'Find every parseConfig', status: 'completed', activeForm: 'Finding every parseConfig' },
  { content: 'Rename it in src/', status: 'in_progress', activeForm: 'Renaming it in src/' },
  { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
];

test('the last TodoWrite list is in state, in the transcript, and survives continue-as-new', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('TodoWrite', { todos: plan.map((todo) => ({ ...todo, status: 'pending' })) })]),
    reply([toolUse('TodoWrite', { todos: plan })]),
    // Two in progress: refused, and the list stays as it was.
    reply([toolUse('TodoWrite', { todos: plan.map((todo) => ({ ...todo, status: 'in_progress' })) })]),
    reply([text('Renaming now.')]),
  ]);
  const handle = await harness.start({
    prompt: 'rename parseConfig',
    workdir: makeRepo({}),
    interactive: true,
    toolSummaries: false,
    continueAsNewAfterTurns: 2,
  });
  let state = await handle.query<AgentState>('state');
  while (!(state.status === 'waiting_input' && state.turn === 4)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await handle.query<AgentState>('state');
  }
  expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
  expect(state.todos).toEqual(plan);
  const refused = harness.fake.requests.at(-1)!.body.messages.at(-1)!;
  expect(JSON.stringify(refused)).toContain('More than one item is in_progress');

  const status = await harness.cli(['status', handle.workflowId]);
  expect(status.stdout).toContain(
    '  todos (1/3 done · Renaming it in src/):\n    ☑ Find every parseConfig\n    ▸ Renaming it in src/\n    ☐ Run the tests',
  );
  await handle.signal('end');
  await handle.result();
});
