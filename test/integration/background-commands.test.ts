/**
 * Background commands (issue 26), on a real dev server with the sandbox users run: a background
 * build runs while the model edits a file, its end reaches the next model request as a
 * `<task-notification>`, TaskOutput returns its output; TaskStop kills one; a worker SIGKILLed
 * while one runs gets it reported as lost, not run again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  byTurn,
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  type RecordedRequest,
} from '../support/fake-anthropic';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { stateQuery } from '../../src/workflows/definitions';
import { Harness, killProcess, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const STARTED = /Command running in background with ID: (\w+)\./;

/** The background command's id, from the Bash call's answer in this request. */
function taskIdIn(request: RecordedRequest): string {
  const answer = toolResultText(lastToolResults(request)[0]!);
  const id = STARTED.exec(answer)?.[1];
  if (!id) throw new Error(`no background command started: ${answer}`);
  return id;
}

function lastResult(request: RecordedRequest): string {
  return toolResultText(lastToolResults(request)[0]!);
}

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The session's state once `check` holds of it. */
async function stateWhen(handle: WorkflowHandle, check: (state: AgentState) => boolean): Promise<AgentState> {
  let state: AgentState | undefined;
  await waitFor(async () => check((state = await handle.query<AgentState>(stateQuery))));
  return state!;
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

test('a background build runs while the model edits; its notification and TaskOutput give its output, across continue-as-new', async () => {
  harness = await Harness.start();
  await harness.startWorker();
  const workdir = makeRepo({ 'README.md': '# app\n' });
  let id = '';
  const seen: { builtWhileEditing?: boolean; notification?: string; output?: string } = {};
  harness.fake.handler = byTurn([
    reply([
      toolUse('Bash', {
        command: 'sleep 2; echo built > build.out; echo build ok',
        description: 'Build the project',
        run_in_background: true,
      }),
    ]),
    (request) => {
      id = taskIdIn(request);
      return reply([toolUse('Write', { file_path: 'notes.md', content: 'edited while the build runs\n' })]);
    },
    (request) => {
      seen.builtWhileEditing = existsSync(join(workdir, 'build.out'));
      expect(lastResult(request)).not.toContain('error');
      // A foreground command outlasts the build: its end is told with the next request.
      return reply([toolUse('Bash', { command: 'sleep 3; echo waited', description: 'Wait a little' })]);
    },
    (request) => {
      seen.notification = JSON.stringify(request.body.messages.at(-1));
      return reply([toolUse('TaskOutput', { task_id: id, block: true, timeout: 20_000 })]);
    },
    (request) => {
      seen.output = lastResult(request);
      return reply([text('Built and edited.')]);
    },
  ]);
  // A run continues as new after every turn, except while a background command runs: it waits for its end.
  const handle = await harness.start({ prompt: 'Build and edit', workdir, continueAsNewAfterTurns: 1 });
  const result = (await handle.result()) as AgentResult;

  expect(result).toMatchObject({ reason: 'completed', finalText: 'Built and edited.' });
  expect(seen.builtWhileEditing).toBe(false);
  expect(readFileSync(join(workdir, 'notes.md'), 'utf8')).toBe('edited while the build runs\n');
  expect(readFileSync(join(workdir, 'build.out'), 'utf8')).toBe('built\n');
  expect(seen.notification).toContain('<task-notification>');
  expect(seen.notification).toContain(`<task-id>${id}</task-id>`);
  expect(seen.notification).toContain('<status>completed</status>');
  expect(seen.notification).toContain('build ok');
  expect(seen.output).toContain('<retrieval_status>success</retrieval_status>');
  expect(seen.output).toContain('<status>completed</status>');
  expect(seen.output).toContain('build ok');
  // The run that started the command went on until it ended; the next one carried it and its notification.
  const runs = await handle.describe();
  expect(runs.runId).not.toBe(handle.firstExecutionRunId);
  const state = await handle.query<AgentState>(stateQuery);
  expect(state.backgroundTasks).toEqual([
    expect.objectContaining({ id, status: 'completed', description: 'Build the project' }),
  ]);
});

test('TaskStop kills a background command', async () => {
  harness = await Harness.start();
  await harness.startWorker();
  const workdir = makeRepo({ 'README.md': '# app\n' });
  let stopped = '';
  harness.fake.handler = byTurn([
    reply([
      toolUse('Bash', {
        command: 'echo started; sleep 30; echo never > never.txt',
        description: 'Serve forever',
        run_in_background: true,
      }),
    ]),
    (request) => reply([toolUse('TaskStop', { task_id: taskIdIn(request) })]),
    (request) => {
      stopped = lastResult(request);
      return reply([text('Stopped.')]);
    },
  ]);
  const handle = await harness.start({ prompt: 'Start and stop a server', workdir });
  const running = await stateWhen(handle, (state) => state.backgroundTasks !== undefined);
  const result = (await handle.result()) as AgentResult;

  expect(result.reason).toBe('completed');
  expect(stopped).toMatch(/^Successfully stopped task: \w+ \(Serve forever\)$/);
  expect(running.backgroundTasks?.[0]).toMatchObject({ description: 'Serve forever', status: 'running' });
  const state = await handle.query<AgentState>(stateQuery);
  expect(state.backgroundTasks?.[0]?.status).toBe('killed');
  expect(existsSync(join(workdir, 'never.txt'))).toBe(false);
});

test('SIGKILL of the worker while a background command runs: it is reported lost, not run again', async () => {
  harness = await Harness.start();
  const workdir = makeRepo({ '.gitignore': '.marks/\n', 'README.md': '# app\n' });
  const mark = join(workdir, '.marks', 'started');
  let output = '';
  harness.fake.handler = byTurn([
    reply([
      toolUse('Bash', {
        command: 'mkdir -p .marks; echo started >> .marks/started; echo compiling; sleep 30; echo never > never.txt',
        description: 'Long build',
        run_in_background: true,
      }),
    ]),
    (request) => reply([toolUse('TaskOutput', { task_id: taskIdIn(request), block: true, timeout: 60_000 })]),
    (request) => {
      output = lastResult(request);
      return reply([text('The build was lost.')]);
    },
  ]);
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'Build', workdir });
  await waitFor(() => existsSync(mark) && readFileSync(mark, 'utf8').length > 0);
  // TaskOutput waits in the workflow while the command runs on the worker.
  await stateWhen(handle, (state) => state.currentToolCalls.some((call) => call.name === 'TaskOutput'));
  await killProcess(first);
  await harness.startWorkerProcess();
  const result = (await handle.result()) as AgentResult;

  expect(result).toMatchObject({ reason: 'completed', finalText: 'The build was lost.' });
  expect(output).toContain('<status>lost</status>');
  expect(output).toContain('It was not run again');
  expect(readFileSync(mark, 'utf8')).toBe('started\n');
  expect(existsSync(join(workdir, 'never.txt'))).toBe(false);
});

test('an interrupt stops the background commands too', async () => {
  harness = await Harness.start();
  await harness.startWorker();
  const workdir = makeRepo({ 'README.md': '# app\n' });
  harness.fake.handler = byTurn([
    reply([
      toolUse('Bash', {
        command: 'sleep 30; echo never > never.txt',
        description: 'Watch the files',
        run_in_background: true,
      }),
    ]),
    (request) => reply([toolUse('TaskOutput', { task_id: taskIdIn(request), block: true, timeout: 60_000 })]),
  ]);
  const handle = await harness.start({ prompt: 'Watch', workdir });
  await stateWhen(handle, (state) => state.currentToolCalls.some((call) => call.name === 'TaskOutput'));
  expect(await handle.executeUpdate('interrupt', { args: [{}] })).toEqual({ stopped: 'tools' });
  const result = (await handle.result()) as AgentResult;

  expect(result.reason).toBe('aborted_tools');
  const state = await handle.query<AgentState>(stateQuery);
  expect(state.backgroundTasks?.[0]?.status).toBe('killed');
  expect(existsSync(join(workdir, 'never.txt'))).toBe(false);
});
