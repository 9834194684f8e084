/**
 * Steering a running session: stop hooks, token budget, interrupt, messages, approvals, and the
 * search attributes people query it by. Real dev server, real worker, fake model.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  lastToolResults,
  reply,
  requestText,
  text,
  toolResultText,
  toolUse,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo, temporalAddress } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

/** Scripts the fake for one session by request count (hooks and budgets add requests, not turns). */
function script(
  replies: ((request: RecordedRequest) => FakeReply)[],
  requests: RecordedRequest[] = [],
): RecordedRequest[] {
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

async function fileAppears(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 50));
}

test('a blocking stop hook keeps the agent working until the repository tests pass', async () => {
  const workdir = makeRepo({
    'add.js': 'module.exports = (a, b) => a - b;\n',
    'test.sh':
      "node -e \"if (require('./add.js')(2, 3) !== 5) { console.error('add(2, 3) should be 5'); process.exit(1) }\"\n",
  });
  const hookLog = join(workdir, '.hook-inputs.jsonl');
  const requests = script([
    () => reply([text('I think it is done.')]),
    () => reply([toolUse('Read', { file_path: 'add.js' })]),
    () => reply([toolUse('Edit', { file_path: 'add.js', old_string: 'a - b', new_string: 'a + b' })]),
    () => reply([text('Fixed add.js; the tests pass now.')]),
  ]);
  const handle = await harness.start({
    prompt: 'Make the tests pass',
    workdir,
    stopHooks: [
      {
        command: `cat >> ${hookLog}; echo >> ${hookLog}; bash test.sh 2>&1 >/dev/null || { echo "Tests fail: $(bash test.sh 2>&1)" >&2; exit 2; }`,
      },
    ],
  });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Fixed add.js; the tests pass now.' });
  expect(readFileSync(join(workdir, 'add.js'), 'utf8')).toBe('module.exports = (a, b) => a + b;\n');
  // The hook's stderr went to the model as the next user message.
  expect(requestText(requests[1]!)).toContain('Stop hook feedback:\nTests fail: add(2, 3) should be 5');
  const state = await handle.query<AgentState>('state');
  expect(state.transitions).toEqual(['stop_hook_blocking', 'next_turn', 'next_turn']);
  // The hook was told when it had already blocked once.
  const inputs = readFileSync(hookLog, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(inputs.map((input) => input.stop_hook_active)).toEqual([false, true]);
  expect(inputs[0]).toMatchObject({ hook_event_name: 'Stop', final_text: 'I think it is done.', cwd: workdir });
});

test('stop hooks from the repository settings (trusted); {"continue":false} ends the run with stop_hook_prevented', async () => {
  const workdir = makeRepo({
    '.agent/settings.json': JSON.stringify({
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'echo \'{"continue":false,"stopReason":"release freeze"}\'' }] }],
      },
    }),
  });
  script([() => reply([text('done')])]);
  const result = await harness.run({ prompt: 'go', workdir, trustRepoHooks: true });
  expect(result).toMatchObject({ reason: 'stop_hook_prevented', error: 'release freeze' });
});

test('token budget: nudges below 90% of the budget, then stops once it is reached', async () => {
  const requests = script([
    () => ({ ...reply([text('step one')]), outputTokens: 2000 }),
    () => ({ ...reply([text('step two')]), outputTokens: 3000 }),
    () => ({ ...reply([text('step three')]), outputTokens: 4000 }),
  ]);
  const handle = await harness.start({ prompt: 'work', workdir: makeRepo({}), tokenBudget: 10_000 });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'step three' });
  expect(result.usage.outputTokens).toBe(9000);
  expect(requests).toHaveLength(3);
  expect(requestText(requests[1]!)).toContain(
    '20% of the token budget used (2000 of 10000 output tokens). Keep working on the task; do not summarise.',
  );
  expect(requestText(requests[2]!)).toContain('50% of the token budget used');
  expect((await handle.query<AgentState>('state')).transitions).toEqual([
    'token_budget_continuation',
    'token_budget_continuation',
  ]);
});

test('token budget: diminishing returns stop the nudging', async () => {
  const requests = script(
    Array.from({ length: 10 }, (_, index) => () => ({ ...reply([text(`small step ${index}`)]), outputTokens: 100 })),
  );
  const handle = await harness.start({ prompt: 'work', workdir: makeRepo({}), tokenBudget: 1_000_000 });
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'small step 3' });
  expect(requests).toHaveLength(4);
  expect((await handle.query<AgentState>('state')).transitions).toEqual(Array(3).fill('token_budget_continuation'));
});

test('interrupt during a long Bash ends with aborted_tools and a transcript where every tool_use has its result', async () => {
  const workdir = makeRepo({});
  const marker = join(workdir, 'started');
  script([
    () =>
      reply([
        toolUse('Read', { file_path: 'missing.txt' }),
        toolUse('Bash', { command: `touch ${marker}; sleep 60; touch finished.txt` }),
      ]),
  ]);
  const handle = await harness.start({ prompt: 'run the long thing', workdir });
  await fileAppears(marker);
  const effect = await handle.executeUpdate('interrupt', { args: [{ reason: 'wrong approach' }] });
  expect(effect).toEqual({ stopped: 'tools' });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('aborted_tools');
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 1000 });
  const calls = entries
    .filter((entry) => entry.type === 'tool_call')
    .map((entry) => entry.type === 'tool_call' && entry.toolUseId);
  const results = entries.filter((entry) => entry.type === 'tool_result');
  expect(results.map((entry) => entry.type === 'tool_result' && entry.toolUseId)).toEqual(calls);
  expect(results[1]).toMatchObject({ isError: true, preview: expect.stringContaining('Interrupted by the user') });
  expect(entries).toContainEqual(expect.objectContaining({ type: 'interrupt', stopped: 'tools' }));
  expect(existsSync(join(workdir, 'finished.txt'))).toBe(false);
});

test('a message sent while tools run is injected at the start of the next turn, not mid-turn', async () => {
  const workdir = makeRepo({});
  const marker = join(workdir, 'started');
  const release = join(workdir, 'release');
  const requests = script([
    () =>
      reply([
        toolUse('Bash', { command: `touch ${marker}; while [ ! -e ${release} ]; do sleep 0.1; done; echo done` }),
      ]),
    () => reply([text('Noted: I will use tabs.')]),
  ]);
  const handle = await harness.start({ prompt: 'format the code', workdir });
  await fileAppears(marker);
  await handle.signal('userMessage', { text: 'Please use tabs, not spaces.' });
  await stateWhere(handle, (state) => state.queuedMessages === 1);
  writeFileSync(release, '');
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  const messages = requests[1]!.body.messages;
  const last = messages[messages.length - 1]!;
  expect(last.role).toBe('user');
  // The tool result first, then the person's message, in the same user message.
  expect((last.content as { type: string }[]).map((block) => block.type)).toEqual(['tool_result', 'text']);
  expect(requestText(requests[1]!)).toContain('Please use tabs, not spaces.');
});

test('an interactive session waits for the next message, and `end` closes it', async () => {
  const requests = script([() => reply([text('Ready.')]), () => reply([text('Added the tests.')])]);
  const handle = await harness.start({ prompt: 'wait for my instructions', workdir: makeRepo({}), interactive: true });
  await stateWhere(handle, (state) => state.status === 'waiting_input');
  await handle.signal('userMessage', { text: 'Now add tests.' });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
  expect(requestText(requests[1]!)).toContain('Now add tests.');
  await handle.signal('end');
  expect(await handle.result()).toMatchObject({ reason: 'completed', turnCount: 2, finalText: 'Added the tests.' });
  expect((await handle.query<AgentState>('state')).transitions).toEqual(['user_message']);
});

test('approvals: granted, denied with feedback, timed out; allow rules skip the wait; AgentStatus is queryable', async () => {
  const workdir = makeRepo({ 'keep.txt': 'keep\n' });
  // A repository of its own: in the sandbox, `git status` sees the workdir and nothing above it.
  execFileSync('git', ['init', '-q'], { cwd: workdir });
  const requests = script([
    () => reply([toolUse('Write', { file_path: 'new.txt', content: 'hello' }, 'toolu_write')]),
    () => reply([toolUse('Bash', { command: 'rm keep.txt' }, 'toolu_rm')]),
    () => reply([toolUse('Bash', { command: 'touch late.txt' }, 'toolu_late')]),
    () => reply([toolUse('Bash', { command: 'git status' }, 'toolu_git')]),
    () => reply([text('done')]),
  ]);
  const handle = await harness.start({
    prompt: 'tidy up',
    workdir,
    permissionMode: 'ask',
    allowRules: ['Bash(git status)'],
    approvalTimeoutMs: 3000,
  });

  const waiting = await stateWhere(handle, (state) => state.pendingApprovals.length > 0);
  expect(waiting).toMatchObject({
    status: 'waiting_approval',
    pendingApprovals: [{ toolUseId: 'toolu_write', name: 'Write', summary: 'Write new.txt' }],
  });
  // The search attribute is visible to the Temporal CLI.
  const listed = await promisify(execFile)(process.env.TEMPORAL_CLI_PATH!, [
    'workflow',
    'list',
    '--address',
    temporalAddress(),
    '--query',
    `AgentStatus='waiting_approval' AND WorkflowId='${handle.workflowId}'`,
    '--output',
    'json',
  ]);
  expect(JSON.parse(listed.stdout)).toEqual([
    expect.objectContaining({ execution: expect.objectContaining({ workflowId: handle.workflowId }) }),
  ]);
  // Unknown ids are rejected by the validator.
  const rejected = await handle
    .executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_nope', decision: 'allow' }] })
    .catch((error: Error) => error);
  expect((rejected as Error & { cause?: Error }).cause?.message).toMatch(
    /No tool call toolu_nope is waiting for approval/,
  );
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_write', decision: 'allow' }] });

  await stateWhere(handle, (state) => state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_rm'));
  await handle.executeUpdate('approveTool', {
    args: [{ toolUseId: 'toolu_rm', decision: 'deny', feedback: 'keep.txt is needed' }],
  });
  // toolu_late is left unanswered: it times out and is denied.

  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  expect(readFileSync(join(workdir, 'new.txt'), 'utf8')).toBe('hello');
  expect(existsSync(join(workdir, 'keep.txt'))).toBe(true);
  expect(existsSync(join(workdir, 'late.txt'))).toBe(false);
  const resultOf = (index: number) => lastToolResults(requests[index]!)[0]!;
  expect(resultOf(1).is_error).toBe(false);
  expect(resultOf(2)).toMatchObject({ is_error: true });
  expect(toolResultText(resultOf(2))).toContain(
    'The user denied this tool call, so it was not run. Feedback: keep.txt is needed',
  );
  expect(toolResultText(resultOf(3))).toContain('not approved in time');
  expect(resultOf(4).is_error).toBe(false); // git status matched the allow rule: no wait
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 1000 });
  expect(
    entries.filter((entry) => entry.type === 'approval').map((entry) => entry.type === 'approval' && entry.decision),
  ).toEqual(['allow', 'deny', 'timeout']);
});

test('feedback given with an approval reaches the model, also when the result is stored by reference', async () => {
  const workdir = makeRepo({});
  const requests = script([
    () => reply([toolUse('Bash', { command: 'seq 1 3000' }, 'toolu_seq')]),
    () => reply([text('done')]),
  ]);
  const handle = await harness.start({ prompt: 'count', workdir, permissionMode: 'ask' });
  await stateWhere(handle, (state) => state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_seq'));
  await handle.executeUpdate('approveTool', {
    args: [{ toolUseId: 'toolu_seq', decision: 'allow', feedback: 'only count, do not write' }],
  });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  const result = toolResultText(lastToolResults(requests[1]!)[0]!);
  expect(result.length).toBeGreaterThan(2048); // over INLINE_TEXT_LIMIT: the result travelled by reference
  expect(result).toContain('2999\n3000');
  expect(result).toMatch(/User feedback on approval: only count, do not write$/);
});

test('the small model summarises each tool batch into the transcript and current details', async () => {
  script([
    () => reply([toolUse('Glob', { pattern: '*' }), toolUse('Read', { file_path: 'a.txt' })]),
    () => reply([text('done')]),
  ]);
  const before = harness.fake.summaryRequests.length;
  const handle = await harness.start({ prompt: 'look around', workdir: makeRepo({ 'a.txt': 'a' }), interactive: true });
  const state = await stateWhere(
    handle,
    (current) => current.status === 'waiting_input' && current.lastToolSummary !== null,
  );
  expect(state.lastToolSummary).toMatch(/^Summary \d+: the agent looked at files\.$/);
  expect(harness.fake.summaryRequests.length).toBe(before + 1);
  expect(harness.fake.summaryRequests[before]!.body.model).toBe('claude-haiku-5-5');
  await handle.signal('end');
  await handle.result();
});

test('a batch of one call that labels itself (a Read) gets its own summary, with no small-model call', async () => {
  script([() => reply([toolUse('Read', { file_path: 'a.txt' })]), () => reply([text('done')])]);
  const before = harness.fake.summaryRequests.length;
  const handle = await harness.start({ prompt: 'look', workdir: makeRepo({ 'a.txt': 'a' }), interactive: true });
  const state = await stateWhere(
    handle,
    (current) => current.status === 'waiting_input' && current.lastToolSummary !== null,
  );
  expect(state.lastToolSummary).toBe('Read a.txt');
  await handle.signal('end');
  await handle.result();
  expect(harness.fake.summaryRequests.length).toBe(before);
});

test('interrupt during a model call: an interactive session waits for the next message, others end with aborted_streaming', async () => {
  let release!: () => void;
  const held = new Promise<FakeReply>((resolve) => {
    release = () => resolve(reply([text('too late')]));
  });
  const requests = script([() => ({ kind: 'hold', release: held }), () => reply([text('Starting over as asked.')])]);
  const handle = await harness.start({ prompt: 'think hard', workdir: makeRepo({}), interactive: true });
  while (requests.length === 0) await harness.fake.waitForRequests(harness.fake.requests.length + 1);
  expect(await handle.executeUpdate('interrupt', { args: [{}] })).toEqual({ stopped: 'model' });
  release();
  await stateWhere(handle, (state) => state.status === 'waiting_input');
  // Nothing running now: a second interrupt has nothing to stop.
  expect(await handle.executeUpdate('interrupt', { args: [{}] })).toEqual({ stopped: 'nothing' });
  await handle.signal('userMessage', { text: 'Start over, simpler.' });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
  expect(requestText(requests[1]!)).toContain('Start over, simpler.');
  await handle.signal('end');
  // The session went on after the interrupt and ended normally.
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Starting over as asked.' });
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 100 });
  expect(entries).toContainEqual(expect.objectContaining({ type: 'interrupt', stopped: 'model' }));

  // Not interactive: the interrupt ends the run.
  let releaseSecond!: () => void;
  const heldSecond = new Promise<FakeReply>((resolve) => {
    releaseSecond = () => resolve(reply([text('too late')]));
  });
  const second = script([() => ({ kind: 'hold', release: heldSecond })]);
  const batch = await harness.start({ prompt: 'think hard', workdir: makeRepo({}) });
  while (second.length === 0) await harness.fake.waitForRequests(harness.fake.requests.length + 1);
  await batch.signal('interrupt');
  expect(await batch.result()).toMatchObject({
    reason: 'aborted_streaming',
    error: 'Interrupted while the model was responding',
  });
  releaseSecond();
});
