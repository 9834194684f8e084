/**
 * Every handler survives any input: each signal, update and query sent with no input, `null`,
 * `[]`, a number and wrong field types, as an operator's `temporal workflow signal` would send
 * them. The session notes every dropped signal, refuses every bad update with the problem, and
 * goes on answering. Real dev server, real worker, fake model.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentState, TranscriptEntry } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { reply, requestText, text, type RecordedRequest } from '../support/fake-anthropic';
import { fileHarness, makeRepo, temporalAddress, uniqueId } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

/** What every message is sent with besides its own wrong field types: "no input" is no argument at all. */
const SHAPELESS: { label: string; args: unknown[] }[] = [
  { label: 'no input', args: [] },
  { label: 'null', args: [null] },
  { label: '[]', args: [[]] },
  { label: 'a number', args: [5] },
];

/** The inputs a message is sent with: no input and `null` are valid for those whose input is optional. */
function badInputs(message: { wrong: unknown[]; optional?: true }): { label: string; args: unknown[] }[] {
  const shapeless = message.optional ? SHAPELESS.slice(2) : SHAPELESS;
  return [...shapeless, ...message.wrong.map((wrong) => ({ label: JSON.stringify(wrong), args: [wrong] }))];
}

const SIGNALS: { name: string; wrong: unknown[]; optional?: true }[] = [
  { name: 'userMessage', wrong: [{ text: 5 }, { text: '   ' }, { txt: 'hi' }, 'hi'] },
  { name: 'interrupt', wrong: [{ reason: 5 }, 'stop'], optional: true },
  {
    name: 'approveTool',
    wrong: [
      { toolUseId: 'toolu_x', decision: 'allow', feedback: 42 },
      { toolUseId: 5, decision: 'x' },
    ],
  },
  {
    name: 'subAgentApprovals',
    wrong: [
      {},
      { workflowId: 'w', description: 'd', pending: 'x' },
      { workflowId: 'w', description: 'd', pending: [{}] },
    ],
  },
];

const UPDATES: { name: string; wrong: unknown[]; optional?: true }[] = [
  {
    name: 'approveTool',
    wrong: [
      { toolUseId: 'toolu_x', decision: 'allow', feedback: 42 },
      { toolUseId: 'x', decision: 'x' },
    ],
  },
  { name: 'interrupt', wrong: [{ reason: 5 }], optional: true },
  { name: 'rewind', wrong: [{ turn: '1' }, { turn: 1, files: 'no' }, { turn: 1, file: false }] },
  { name: 'move', wrong: [{ host: 5 }, { host: 'b', workdir: 7 }] },
];

/** The fake answers every request with what the person last said. */
function echoModel(): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  harness.fake.handler = (request) => {
    requests.push(request);
    return reply([text(`Heard: ${requestText(request).split('\n').at(-1)}`)]);
  };
  return requests;
}

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function transcript(handle: WorkflowHandle): Promise<TranscriptEntry[]> {
  return (await handle.query(transcriptQuery, { fromIndex: 0, limit: 1000 })).entries;
}

type DroppedEntry = Extract<TranscriptEntry, { type: 'dropped_signal' }>;

/** The transcript's notes of dropped signals, once there are `count` (signals are handled in the order sent). */
async function droppedUntil(handle: WorkflowHandle, count: number): Promise<DroppedEntry[]> {
  for (;;) {
    const entries = await transcript(handle);
    const dropped = entries.filter((entry): entry is DroppedEntry => entry.type === 'dropped_signal');
    if (dropped.length >= count) return dropped;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function failedWorkflowTasks(handle: WorkflowHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.filter((event) => event.workflowTaskFailedEventAttributes).length;
}

/** The error a rejected update or query surfaces, as one text (the client wraps the workflow's). */
async function refusal(attempt: Promise<unknown>): Promise<string> {
  const error = await attempt.then(
    () => undefined,
    (caught: Error & { cause?: Error }) => caught,
  );
  if (!error) throw new Error('the update or query was accepted');
  return `${error.message} ${error.cause?.message ?? ''}`;
}

async function waitingSession(): Promise<WorkflowHandle> {
  const handle = await harness.start({ prompt: 'wait for my instructions', workdir: makeRepo({}), interactive: true });
  await stateWhere(handle, (state) => state.status === 'waiting_input');
  return handle;
}

test('malformed signals are dropped with a transcript note; the session still answers a valid message', async () => {
  const requests = echoModel();
  const handle = await waitingSession();
  // An interrupt with no input (or null) is a valid one (with nothing to stop): not dropped.
  await handle.signal('interrupt');
  await handle.signal('interrupt', null);
  let expected = 0;
  for (const signal of SIGNALS) {
    for (const { args } of badInputs(signal)) {
      await handle.signal(signal.name, ...args);
      expected++;
    }
  }
  const dropped = await droppedUntil(handle, expected);
  expect(dropped).toHaveLength(expected);
  for (const signal of SIGNALS) expect(dropped.some((entry) => entry.signal === signal.name)).toBe(true);
  expect(dropped).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ signal: 'userMessage', problem: 'no input; userMessage takes {"text":"…"}' }),
      expect.objectContaining({ signal: 'userMessage', problem: 'text: expected string, received number' }),
      expect.objectContaining({ signal: 'userMessage', problem: 'text: must be a non-empty string' }),
      expect.objectContaining({ signal: 'approveTool', problem: 'feedback: expected string, received number' }),
      expect.objectContaining({
        signal: 'subAgentApprovals',
        problem: 'workflowId: required; description: required; pending: required',
      }),
    ]),
  );

  await handle.signal('userMessage', { text: 'Now add tests.' });
  const answered = await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
  expect(answered.queuedMessages).toBe(0);
  expect(requests).toHaveLength(2);
  expect(requestText(requests[1]!)).toContain('Now add tests.');
  expect(await failedWorkflowTasks(handle)).toBe(0);
  await handle.signal('end');
  expect(await handle.result()).toMatchObject({ reason: 'completed', turnCount: 2 });
});

test('malformed updates and query arguments are refused with the problem; the session goes on answering', async () => {
  echoModel();
  const handle = await waitingSession();
  for (const update of UPDATES) {
    for (const { label, args } of badInputs(update)) {
      const message = await refusal(handle.executeUpdate(update.name, { args: args as [unknown] }));
      // The label says which input, should one be accepted.
      const refused = expect.stringContaining(`Invalid ${update.name} update input: `);
      expect({ label, message }).toEqual({ label, message: refused });
    }
  }
  const feedback = { toolUseId: 'toolu_x', decision: 'allow', feedback: 42 };
  const wrongFeedback = await refusal(handle.executeUpdate('approveTool', { args: [feedback] }));
  expect(wrongFeedback).toContain('feedback: expected string, received number');
  const typo = await refusal(handle.executeUpdate('rewind', { args: [{ turn: 1, file: false }] }));
  expect(typo).toContain('unknown field(s): file');
  expect(await refusal(handle.executeUpdate('move', { args: [] }))).toContain('no input; move takes {"host":"…"');

  const badQueries: [string, unknown[]][] = [
    ['transcript', [5]],
    ['transcript', [[]]],
    ['checkpoint', []],
    ['checkpoint', [{ turn: '1' }]],
    ['diff', [{ fromTurn: -1 }]],
  ];
  for (const [query, args] of badQueries) {
    expect(await refusal(handle.query(query, ...args))).toContain(`Invalid ${query} query input: `);
  }
  const limit = await refusal(handle.query('transcript', { limit: 'all' }));
  expect(limit).toContain('limit: expected number, received string');

  // Valid ones are answered: the queries, and an interrupt that had nothing to stop.
  expect(await handle.executeUpdate('interrupt', { args: [{}] })).toEqual({ stopped: 'nothing' });
  expect(await handle.query('transcript', null)).toMatchObject({ nextIndex: expect.any(Number) });
  await stateWhere(handle, (state) => state.snapshots.length > 0);
  expect(await handle.query('diff', null)).toMatchObject({ fromTurn: 0 });
  expect(await failedWorkflowTasks(handle)).toBe(0);
  await handle.signal('end');
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
});

test('a bulk `temporal workflow signal --query` with no input leaves every session it matches answering', async () => {
  const requests = echoModel();
  const sessions = [await waitingSession(), await waitingSession()];
  const ids = sessions.map((handle) => `WorkflowId='${handle.workflowId}'`).join(' OR ');
  const reason = uniqueId('malformed');
  const bulk = ['workflow', 'signal', '--query', ids, '--name', 'userMessage', '--reason', reason, '--yes'];
  await promisify(execFile)(process.env.TEMPORAL_CLI_PATH!, [...bulk, '--address', temporalAddress()]);
  for (const handle of sessions) {
    expect(await droppedUntil(handle, 1)).toEqual([expect.objectContaining({ signal: 'userMessage' })]);
    await handle.signal('userMessage', { text: `go on, ${handle.workflowId}` });
    await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
    expect(requests.some((request) => requestText(request).includes(`go on, ${handle.workflowId}`))).toBe(true);
    expect(await failedWorkflowTasks(handle)).toBe(0);
    await handle.signal('end');
  }
});
