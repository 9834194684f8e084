/**
 * The core loop against a real Temporal dev server, a real worker and the real SDK talking to
 * the fake Messages API.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  byTurn,
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  turnOf,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { Harness, fileHarness, makeRepo } from '../support/harness';
import { scheduledActivities } from '../support/history';

jest.setTimeout(120_000);

const harness = fileHarness();

/** The tool results the model received at the start of `turn` (0-based) of the session in `workdir`. */
function resultsOfTurn(workdir: string, turn: number): { id: string; text: string; isError: boolean }[] {
  const request = requestsOf(workdir).find((candidate) => turnOf(candidate) === turn);
  if (!request) throw new Error(`no request for turn ${turn}`);
  return lastToolResults(request).map((block) => ({
    id: block.tool_use_id!,
    text: toolResultText(block),
    isError: block.is_error === true,
  }));
}

function requestsOf(workdir: string): RecordedRequest[] {
  return harness.fake.requests.filter((request) => JSON.stringify(request.body.system).includes(workdir));
}

test('a multi-turn refactor: parallel reads, an edit, a command, then end_turn', async () => {
  const workdir = makeRepo({
    'src/config.js': 'function parseConfig(text) {\n  return JSON.parse(text);\n}\nmodule.exports = { parseConfig };\n',
    'src/main.js': "const { parseConfig } = require('./config');\nconsole.log(parseConfig('{}'));\n",
  });
  harness.fake.handler = byTurn([
    reply([
      text('Let me look at the code.'),
      toolUse('Read', { file_path: 'src/config.js' }, 'toolu_read_config'),
      toolUse('Read', { file_path: join(workdir, 'src/main.js') }, 'toolu_read_main'),
      toolUse('Grep', { pattern: 'parseConfig', output_mode: 'content' }, 'toolu_grep'),
    ]),
    reply([
      toolUse(
        'Edit',
        { file_path: 'src/config.js', old_string: 'parseConfig', new_string: 'loadConfig', replace_all: true },
        'toolu_edit_config',
      ),
      toolUse(
        'Edit',
        { file_path: 'src/main.js', old_string: 'parseConfig', new_string: 'loadConfig', replace_all: true },
        'toolu_edit_main',
      ),
    ]),
    reply([toolUse('Bash', { command: 'node src/main.js && echo ran-ok', description: 'Run main' }, 'toolu_bash')]),
    reply([text('Renamed parseConfig to loadConfig in 2 files.')]),
  ]);

  const handle = await harness.start({ prompt: 'Rename parseConfig to loadConfig everywhere', workdir });
  const result = await handle.result();

  expect(result).toEqual({
    reason: 'completed',
    turnCount: 4,
    finalText: 'Renamed parseConfig to loadConfig in 2 files.',
    usage: expect.objectContaining({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) }),
    filesChanged: [
      { path: 'src/config.js', change: 'modified', linesAdded: 2, linesRemoved: 2 },
      { path: 'src/main.js', change: 'modified', linesAdded: 2, linesRemoved: 2 },
    ],
    // The files as the session left them: its last snapshot.
    snapshotRef: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    // The transcript, stored for clients with no worker to query (durable-agent watch).
    transcriptRef: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
  });
  expect(result.usage.inputTokens).toBeGreaterThan(0);
  expect(readFileSync(join(workdir, 'src/config.js'), 'utf8')).toBe(
    'function loadConfig(text) {\n  return JSON.parse(text);\n}\nmodule.exports = { loadConfig };\n',
  );
  expect(readFileSync(join(workdir, 'src/main.js'), 'utf8')).toContain("const { loadConfig } = require('./config');");

  // One tool_result per tool_use, in the order of the tool_use blocks, in ONE user message.
  const firstResults = resultsOfTurn(workdir, 1);
  expect(firstResults.map((result) => result.id)).toEqual(['toolu_read_config', 'toolu_read_main', 'toolu_grep']);
  expect(firstResults.every((result) => !result.isError)).toBe(true);
  expect(firstResults[0]!.text).toContain('     1\tfunction parseConfig(text) {');
  expect(firstResults[2]!.text).toContain('src/main.js:1:');
  expect(resultsOfTurn(workdir, 2).map((result) => result.isError)).toEqual([false, false]);
  const bash = resultsOfTurn(workdir, 3)[0]!;
  expect(bash.text).toContain('{}');
  expect(bash.text).toContain('ran-ok');
  expect(bash.text).toContain('Exit code: 0');

  // The request carries the tools with zod-derived schemas, and the built-in system prompt.
  const first = requestsOf(workdir)[0]!;
  expect(first.body.tools!.map((tool) => tool.name)).toEqual([
    'Read',
    'Write',
    'Edit',
    'Bash',
    'Glob',
    'Grep',
    'TodoWrite',
    // Claude Code 2.1's name for the sub-agent tool (Task is accepted, never offered twice).
    'Agent',
    'NotebookEdit',
    'EnterPlanMode',
    'ExitPlanMode',
    'AskUserQuestion',
    'TaskOutput',
    'TaskStop',
    // Not offered: MCP resources (no server has any), web tools (AGENT_WEB_FETCH unset), Skill (no skills).
  ]);
  expect(first.body.tools![0]!.input_schema).toMatchObject({ type: 'object', required: ['file_path'] });
  expect(first.body.max_tokens).toBe(8192);
  expect(first.body.model).toBe('claude-sonnet-5-5');
  expect(JSON.stringify(first.body.system)).toContain(`Working directory: ${workdir}`);

  // One activity per model call and per tool call, with summaries that read like the session.
  const scheduled = await scheduledActivities(handle);
  // After each tool batch, the small model's summary runs beside the loop (not waited for).
  expect(
    scheduled.filter((activity) => activity.type === 'summarizeToolBatch').map((activity) => activity.summary),
  ).toEqual(['turn 1 · tool summary', 'turn 2 · tool summary', 'turn 3 · tool summary']);
  const activities = scheduled.filter((activity) => activity.type !== 'summarizeToolBatch');
  expect(activities).toEqual([
    // Prepared, and the workdir leased until the session ends (nothing renews it: closeSession releases it).
    { type: 'prepareSession', summary: 'prepare session' },
    // The start snapshot runs beside the first model call; the calls that change files snapshot as they end.
    { type: 'snapshotWorkspace', summary: 'snapshot (start)' },
    { type: 'callModel', summary: 'turn 1 · model' },
    { type: 'runTool', summary: 'Read src/config.js' },
    { type: 'runTool', summary: 'Read src/main.js' },
    { type: 'runTool', summary: 'Grep parseConfig' },
    { type: 'callModel', summary: 'turn 2 · model' },
    { type: 'runTool', summary: 'Edit src/config.js' },
    { type: 'runTool', summary: 'Edit src/main.js' },
    { type: 'callModel', summary: 'turn 3 · model' },
    { type: 'runTool', summary: 'Bash Run main' },
    { type: 'callModel', summary: 'turn 4 · model' },
    { type: 'diffSnapshots', summary: 'files changed' },
    { type: 'closeSession', summary: 'close session' },
  ]);
});

test('invalid tool input, unknown tools and tool failures come back to the model as is_error results', async () => {
  const workdir = makeRepo({ 'a.txt': 'one\ntwo\none\n' });
  writeFileSync(join(workdir, '..', 'outside-secret.txt'), 'secret');
  symlinkSync(join(workdir, '..'), join(workdir, 'escape'));
  harness.fake.handler = byTurn([
    reply([
      toolUse('Read', { path: 'a.txt' }, 'toolu_bad_input'),
      toolUse('Teleport', { to: 'mars' }, 'toolu_unknown'),
      toolUse('Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'uno' }, 'toolu_edit_unread'),
      toolUse('Read', { file_path: '../outside-secret.txt' }, 'toolu_outside'),
      toolUse('Read', { file_path: 'escape/outside-secret.txt' }, 'toolu_symlink'),
      toolUse('Read', { file_path: 'missing.txt' }, 'toolu_missing'),
      toolUse('Glob', 'not an object', 'toolu_malformed'),
    ]),
    reply([
      toolUse('Read', { file_path: 'a.txt' }, 'toolu_read'),
      toolUse('Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'uno' }, 'toolu_not_unique'),
      toolUse('Edit', { file_path: 'a.txt', old_string: 'three', new_string: 'tres' }, 'toolu_not_found'),
      toolUse('Write', { file_path: 'a.txt', content: 'overwritten' }, 'toolu_write_ok'),
    ]),
    reply([text('done')]),
  ]);

  const result = await harness.run({ prompt: 'exercise the errors', workdir });
  expect(result.reason).toBe('completed');

  const first = resultsOfTurn(workdir, 1);
  expect(first.map((entry) => entry.id)).toEqual([
    'toolu_bad_input',
    'toolu_unknown',
    'toolu_edit_unread',
    'toolu_outside',
    'toolu_symlink',
    'toolu_missing',
    'toolu_malformed',
  ]);
  expect(first.every((entry) => entry.isError)).toBe(true);
  expect(first[0]!.text).toMatch(/^<tool_use_error>InputValidationError: Read failed/);
  expect(first[0]!.text).toContain('`file_path` is missing');
  expect(first[1]!.text).toMatch(/^<tool_use_error>InputValidationError: No such tool available: Teleport/);
  expect(first[2]!.text).toContain('File has not been read yet');
  expect(first[3]!.text).toContain('outside the working directory');
  expect(first[4]!.text).toContain('outside the working directory');
  expect(first[5]!.text).toContain('File does not exist');
  expect(first[6]!.text).toMatch(/^<tool_use_error>InputValidationError: Glob failed/);

  const second = resultsOfTurn(workdir, 2);
  expect(second.map((entry) => entry.isError)).toEqual([false, true, true, false]);
  expect(second[1]!.text).toContain('Found 2 matches of the string to replace, but replace_all is false');
  expect(second[2]!.text).toContain('String to replace not found');
  expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('overwritten');
});

test('a failing Bash call cancels the calls after it; commands do not see the worker secrets', async () => {
  const workdir = makeRepo({ 'a.txt': 'a\n' });
  harness.fake.handler = byTurn([
    reply([
      toolUse('Bash', { command: 'echo "key=${ANTHROPIC_API_KEY:-unset}"; exit 3' }, 'toolu_fail'),
      toolUse('Write', { file_path: 'b.txt', content: 'never' }, 'toolu_after_1'),
      toolUse('Read', { file_path: 'a.txt' }, 'toolu_after_2'),
    ]),
    reply([text('ok')]),
  ]);
  const result = await harness.run({ prompt: 'run it', workdir });
  expect(result.reason).toBe('completed');
  const results = resultsOfTurn(workdir, 1);
  expect(results[0]).toMatchObject({ id: 'toolu_fail', isError: true });
  expect(results[0]!.text).toContain('key=unset');
  expect(results[0]!.text).toContain('Exit code: 3');
  for (const cancelled of results.slice(1)) {
    expect(cancelled.isError).toBe(true);
    expect(cancelled.text).toContain('Cancelled: parallel tool call Bash');
  }
  expect(() => readFileSync(join(workdir, 'b.txt'))).toThrow();
});

test('maxTurns ends the run with max_turns after the tool results are in', async () => {
  const workdir = makeRepo({ 'a.txt': 'a\n' });
  harness.fake.handler = () => reply([toolUse('Read', { file_path: 'a.txt' })]);
  const result = await harness.run({ prompt: 'loop forever', workdir, maxTurns: 2 });
  expect(result).toMatchObject({ reason: 'max_turns', turnCount: 2 });
});

test('a non-retryable API error ends the run with model_error and the API message', async () => {
  const workdir = makeRepo({});
  const before = harness.fake.requests.length;
  harness.fake.handler = () => ({
    kind: 'error',
    status: 400,
    type: 'invalid_request_error',
    message: 'messages.0: bad things happened',
  });
  const result = await harness.run({ prompt: 'hi', workdir });
  expect(result.reason).toBe('model_error');
  expect(result.error).toContain('messages.0: bad things happened');
  expect(harness.fake.requests.length - before).toBe(1); // not retried

  harness.fake.handler = () => ({
    kind: 'error',
    status: 401,
    type: 'authentication_error',
    message: 'invalid x-api-key',
  });
  const unauthorized = await harness.run({ prompt: 'hi', workdir });
  expect(unauthorized).toMatchObject({ reason: 'model_error', error: expect.stringContaining('invalid x-api-key') });
});

test('overloads and broken streams are retried by Temporal, a rate limit waited out by the workflow, then the run completes', async () => {
  const workdir = makeRepo({});
  let calls = 0;
  harness.fake.handler = () => {
    calls++;
    if (calls === 1) return { kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' };
    if (calls === 2)
      return {
        kind: 'error',
        status: 429,
        type: 'rate_limit_error',
        message: 'slow down',
        headers: { 'retry-after': '1' },
      };
    if (calls === 3) return { kind: 'stream_error', type: 'overloaded_error', message: 'Overloaded mid-stream' };
    return reply([text('finally')]);
  };
  const handle = await harness.start({ prompt: 'hi', workdir });
  const result = await handle.result();
  expect(result).toMatchObject({ reason: 'completed', finalText: 'finally', turnCount: 1 });
  expect(calls).toBe(4);
  const history = await handle.fetchHistory();
  const started = history.events!.filter((event) => event.activityTaskStartedEventAttributes);
  // 529 then 429 on attempts 1 and 2; the 429 is waited out on a timer (issue 26), then a new call: attempts 1 and 2.
  expect(Math.max(...started.map((event) => event.activityTaskStartedEventAttributes!.attempt ?? 0))).toBe(2);
  expect(history.events!.some((event) => event.timerStartedEventAttributes)).toBe(true);
});

test('invalid input fails the workflow at once, naming the field', async () => {
  const missingWorkdir = await harness.start({ prompt: 'hi' });
  const failure = await missingWorkdir.result().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause.type).toBe('InvalidWorkflowInput');
  expect(cause.nonRetryable).toBe(true);
  expect(cause.message).toContain('workdir: required');

  const relative = await harness.start({ prompt: 'hi', workdir: 'relative/path', maxTurns: 0 });
  const relativeFailure = (await relative.result().catch((error: unknown) => error)) as WorkflowFailedError;
  expect(relativeFailure.cause!.message).toMatch(/workdir: must be an absolute path/);
  expect(relativeFailure.cause!.message).toMatch(/maxTurns: /);

  const nowhere = await harness.start({ prompt: 'hi', workdir: '/definitely/not/here' });
  const nowhereFailure = (await nowhere.result().catch((error: unknown) => error)) as WorkflowFailedError;
  expect(nowhereFailure.cause!.cause).toBeInstanceOf(ApplicationFailure);
  expect((nowhereFailure.cause!.cause as ApplicationFailure).type).toBe('InvalidWorkdir');
  expect((nowhereFailure.cause!.cause as ApplicationFailure).message).toContain('/definitely/not/here does not exist');
});

test('a worker without an API key fails the session at once, saying so', async () => {
  const keyless = await Harness.start();
  try {
    await keyless.startWorker({ anthropic: { baseURL: keyless.fake.url } });
    const failure = (await keyless
      .run({ prompt: 'hi', workdir: makeRepo({}) })
      .catch((error: unknown) => error)) as WorkflowFailedError;
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure.cause!.cause as ApplicationFailure).type).toBe('MissingApiKey');
    expect((failure.cause!.cause as ApplicationFailure).message).toContain('ANTHROPIC_API_KEY is not set');
    expect(keyless.fake.requests).toHaveLength(0);
  } finally {
    await keyless.stop();
  }
});

test('history per turn does not grow with the context: 40 KB reads cost no more history than tiny ones', async () => {
  const turns = 8;
  async function session(fileSize: number): Promise<number> {
    const files: Record<string, string> = {};
    for (let index = 0; index < turns; index++)
      files[`f${index}.txt`] = `${String(index).repeat(49)}\n`.repeat(fileSize / 50);
    const workdir = makeRepo(files);
    harness.fake.handler = (request) => {
      const turn = turnOf(request);
      return turn < turns ? reply([toolUse('Read', { file_path: `f${turn}.txt` })]) : reply([text('read them all')]);
    };
    const handle = await harness.start({ prompt: 'read every file', workdir });
    expect(await handle.result()).toMatchObject({ reason: 'completed', turnCount: turns + 1 });
    const lastRequest = requestsOf(workdir).pop()!;
    expect(JSON.stringify(lastRequest.body.messages).length).toBeGreaterThan(fileSize * turns);
    return (await handle.describe()).historySize!;
  }
  const small = await session(50);
  const large = await session(40_000); // the model's context grows by ~40 KB a turn, ~320 KB in all
  // What a turn of 40 KB reads adds beyond a tiny one: the result's 300-character preview, in the
  // few payloads that carry it (tool output, the next request, the transcript). Content in history
  // would add 40 KB a turn. (A ratio of the two totals sat at ×1.16–1.20, too close to call.)
  expect((large - small) / turns).toBeLessThan(2_000);
});

test('large tool results stay out of history: the workflow holds a reference', async () => {
  const workdir = makeRepo({ 'big.txt': 'x'.repeat(200_000) + '\n' });
  harness.fake.handler = byTurn([reply([toolUse('Bash', { command: 'cat big.txt' })]), reply([text('read it')])]);
  const handle = await harness.start({ prompt: 'read the big file', workdir });
  await handle.result();
  const output = resultsOfTurn(workdir, 1)[0]!.text;
  expect(output.length).toBeGreaterThan(29_000);
  expect(output).toContain('characters of output cut');
  const description = await handle.describe();
  // The ~30 KB result reached the model but not the history (which holds a reference).
  expect(description.historySize).toBeLessThan(25_000);
});

test('when a session ends, its edit journal goes with it', async () => {
  const workdir = makeRepo({ 'a.txt': 'one\n' });
  harness.fake.handler = byTurn([
    reply([toolUse('Read', { file_path: 'a.txt' })]),
    reply([toolUse('Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' })]),
    reply([text('Edited.')]),
  ]);
  const handle = await harness.start({ prompt: 'edit', workdir });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('two\n');
  const sessionFolder = createHash('sha256').update(handle.workflowId).digest('hex').slice(0, 32);
  const journal = join(harness.contentDir, 'journal');
  expect(existsSync(journal) ? readdirSync(journal) : []).not.toContain(sessionFolder);
  expect((await scheduledActivities(handle)).map((activity) => activity.type).slice(-2)).toEqual([
    'diffSnapshots',
    'closeSession',
  ]);
});
