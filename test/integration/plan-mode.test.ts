/**
 * Plan mode and questions as durable waits, through a real Temporal server and worker processes:
 * in `plan` mode an Edit is refused until a person approves ExitPlanMode (the wait outlasts a
 * SIGKILLed worker), and an AskUserQuestion call waits across a killed worker until the
 * `answerQuestion` update brings the answer, which reaches the model.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { Harness, killProcess, makeRepo } from '../support/harness';

jest.setTimeout(240_000);

let harness: Harness;

afterEach(async () => {
  await harness?.stop();
});

/** The model's replies in order; every request is kept, for what the model was told. */
function script(replies: ((request: RecordedRequest) => FakeReply)[]): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  harness.fake.handler = (request) => {
    requests.push(request);
    return (replies[requests.length - 1] ?? (() => reply([text('(script ended)')])))(request);
  };
  return requests;
}

/** Polls the `state` query until the predicate holds (the session's own progress, not a timer). */
async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function refusal(update: Promise<unknown>): Promise<string | undefined> {
  const error = (await update.catch((caught: Error) => caught)) as Error & { cause?: Error };
  return error.cause?.message ?? error.message;
}

const EDIT = { file_path: 'a.txt', old_string: 'one', new_string: 'two' };

test('plan mode refuses an Edit until ExitPlanMode is approved, across a worker kill; a denied plan stays in plan mode', async () => {
  harness = await Harness.start();
  const workdir = makeRepo({ 'a.txt': 'one\n' });
  const requests = script([
    () => reply([toolUse('EnterPlanMode', {}, 'toolu_enter')]),
    () => reply([toolUse('Read', { file_path: 'a.txt' }, 'toolu_read')]),
    () => reply([toolUse('Edit', EDIT, 'toolu_edit_early')]),
    () => reply([toolUse('ExitPlanMode', { plan: 'PLAN-1: change one to two in a.txt' }, 'toolu_exit_1')]),
    () =>
      reply([text('PLAN-2: change one to two in a.txt, nothing else.'), toolUse('ExitPlanMode', {}, 'toolu_exit_2')]),
    () => reply([toolUse('Edit', EDIT, 'toolu_edit')]),
    () => reply([text('Changed a.txt.')]),
  ]);
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'Change one to two', workdir, permissionMode: 'auto' });

  const waiting = await stateWhere(handle, (state) => state.pendingApprovals.length > 0);
  expect(waiting).toMatchObject({
    status: 'waiting_approval',
    permissionMode: 'plan',
    pendingApprovals: [{ toolUseId: 'toolu_exit_1', name: 'ExitPlanMode', plan: 'PLAN-1: change one to two in a.txt' }],
  });
  // The early Edit was refused, not run.
  expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('one\n');

  // The worker dies while the session waits for a person; another takes over the wait.
  await killProcess(first);
  await harness.startWorkerProcess();
  // A mode on a call that is not a plan, or a mode that does not exist, is refused by the validator.
  expect(
    await refusal(
      handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_exit_1', decision: 'allow', mode: 'plan' }] }),
    ),
  ).toMatch(/mode/);
  await handle.executeUpdate('approveTool', {
    args: [{ toolUseId: 'toolu_exit_1', decision: 'deny', feedback: 'Say that nothing else changes.' }],
  });

  const second = await stateWhere(handle, (state) =>
    state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_exit_2'),
  );
  expect(second.permissionMode).toBe('plan');
  expect(second.pendingApprovals[0]!.plan).toBe('PLAN-2: change one to two in a.txt, nothing else.');
  await handle.executeUpdate('approveTool', {
    args: [{ toolUseId: 'toolu_exit_2', decision: 'allow', mode: 'bypassPermissions' }],
  });

  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Changed a.txt.' });
  expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('two\n');
  const resultOf = (index: number) => lastToolResults(requests[index]!)[0]!;
  expect(toolResultText(resultOf(1))).toMatch(/^Entered plan mode/);
  expect(resultOf(2).is_error).toBe(false); // a read-only tool runs in plan mode
  expect(resultOf(3).is_error).toBe(true);
  expect(toolResultText(resultOf(3))).toContain(
    'Plan mode is active: Edit is not a read-only tool, so it was not run.',
  );
  expect(resultOf(4).is_error).toBe(true);
  expect(toolResultText(resultOf(4))).toContain('Say that nothing else changes.');
  expect(toolResultText(resultOf(5))).toMatch(/^User has approved your plan\./);
  expect(toolResultText(resultOf(5))).toContain('PLAN-2');
  expect(resultOf(6).is_error).toBe(false);
  const state = await handle.query<AgentState>('state');
  expect(state.permissionMode).toBe('bypassPermissions');
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 1000 });
  expect(
    entries.filter((entry) => entry.type === 'permission_mode').map((entry) => 'mode' in entry && entry.mode),
  ).toEqual(['plan', 'bypassPermissions']);
});

test('AskUserQuestion waits across a worker kill; a wrong id or a missing answer is refused; the answer reaches the model', async () => {
  harness = await Harness.start();
  const workdir = makeRepo({ 'a.txt': 'one\n' });
  const questions = [
    {
      question: 'Which format should the report use?',
      header: 'Format',
      options: [
        { label: 'Markdown', description: 'A README-style page' },
        { label: 'JSON', description: 'For tools' },
      ],
      multiSelect: false,
    },
  ];
  const requests = script([
    () => reply([toolUse('AskUserQuestion', { questions }, 'toolu_ask')]),
    () => reply([text('Writing it as Markdown.')]),
  ]);
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'Write the report', workdir });

  const waiting = await stateWhere(handle, (state) => (state.pendingQuestions ?? []).length > 0);
  expect(waiting).toMatchObject({
    status: 'waiting_answer',
    pendingQuestions: [{ toolUseId: 'toolu_ask', questions }],
  });

  await killProcess(first);
  await harness.startWorkerProcess();
  expect(
    await refusal(handle.executeUpdate('answerQuestion', { args: [{ toolUseId: 'toolu_nope', answers: { x: 'y' } }] })),
  ).toMatch(/No AskUserQuestion call toolu_nope is waiting/);
  expect(
    await refusal(
      handle.executeUpdate('answerQuestion', {
        args: [{ toolUseId: 'toolu_ask', answers: { 'Which colour?': 'Blue' } }],
      }),
    ),
  ).toMatch(/not asked/);
  // The CLI names the question by its header.
  const answered = await harness.cli(['answer', handle.workflowId, 'toolu_ask', '--answer', 'Format=Markdown']);
  expect(answered).toMatchObject({ code: 0, stdout: 'Answered toolu_ask.\n' });

  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Writing it as Markdown.' });
  const result = lastToolResults(requests[1]!)[0]!;
  expect(result.is_error).toBe(false);
  expect(toolResultText(result)).toBe(
    'User has answered your questions: "Which format should the report use?"="Markdown". You can now continue with the user\'s answers in mind.',
  );
  expect(existsSync(join(workdir, 'a.txt'))).toBe(true);
});
