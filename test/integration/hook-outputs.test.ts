/**
 * Hook outputs and handler types as Claude Code has them, against a real worker and sandbox: a
 * PreToolUse hook's `updatedInput` changes the command that runs (planned again: an invalid update
 * is an error naming the hook, and an update goes through approval unless the hook allows it), its
 * `additionalContext` reaches the model with the result, `systemMessage` is for people only, a
 * PostToolUse `updatedToolOutput` replaces what the model sees, and a `prompt` hook decides with
 * the small model's answer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  byTurn,
  type FakeHandler,
  lastToolResults,
  reply,
  requestOfTurn,
  requestText,
  text,
  toolResultText,
  toolUse,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();
const SMALL_MODEL = 'claude-haiku-5-5';

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state');
    if (predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A hook that prints this JSON when the call's input contains `when`. */
const printsWhen = (when: string, output: unknown) => `grep -q '${when}' || exit 0; echo '${JSON.stringify(output)}'`;

test('a PreToolUse updatedInput changes the command that runs; its context reaches the model, its systemMessage does not', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'echo one' }), toolUse('Bash', { command: 'echo three' })]),
    reply([text('Done.')]),
  ]);
  const rewrite = printsWhen('echo one', {
    systemMessage: 'policy rewrote the command',
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      updatedInput: { command: 'echo two > out.txt; echo two' },
      additionalContext: 'The policy runs echo two instead.',
    },
  });
  const invalid = printsWhen('echo three', {
    hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { cmd: 'x' } },
  });
  const workdir = makeRepo({});
  const handle = await harness.start({
    prompt: 'say one',
    workdir,
    hooks: {
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: rewrite },
            { type: 'command', command: invalid },
          ],
        },
      ],
    },
    toolSummaries: false,
  });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');

  const [rewritten, refused] = lastToolResults(requestOfTurn(harness.fake.requests, 1)!);
  expect(rewritten!.is_error).toBe(false);
  expect(toolResultText(rewritten!)).toMatch(/^two\n/);
  expect(toolResultText(rewritten!)).toContain('PreToolUse hook additional context: The policy runs echo two instead.');
  expect(readFileSync(join(workdir, 'out.txt'), 'utf8')).toBe('two\n');
  expect(refused!.is_error).toBe(true);
  expect(toolResultText(refused!)).toContain("changed this call's input to one that is not valid, so it was not run");
  expect(toolResultText(refused!)).toContain('command');
  expect(requestText(requestOfTurn(harness.fake.requests, 1)!)).not.toContain('policy rewrote the command');

  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  expect(entries).toContainEqual(
    expect.objectContaining({
      type: 'hook',
      event: 'PreToolUse',
      outcome: 'updated_input',
      detail: expect.stringContaining('echo two'),
    }),
  );
  expect(entries).toContainEqual(
    expect.objectContaining({
      type: 'hook',
      event: 'PreToolUse',
      outcome: 'message',
      detail: 'policy rewrote the command',
    }),
  );
});

test('an updated call goes through approval as updated; one the hook also allows does not wait', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'echo asked' }, 'toolu_asked')]),
    reply([toolUse('Bash', { command: 'echo allowed' }, 'toolu_allowed')]),
    reply([text('Done.')]),
  ]);
  const update = (command: string, decision?: string) => ({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      ...(decision ? { permissionDecision: decision } : {}),
      updatedInput: { command },
    },
  });
  const hooks = [
    { type: 'command', command: printsWhen('echo asked', update('echo changed-then-approved')) },
    { type: 'command', command: printsWhen('echo allowed', update('echo changed-and-allowed', 'allow')) },
  ];
  const handle = await harness.start({
    prompt: 'say things',
    workdir: makeRepo({}),
    permissionMode: 'ask',
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks }] },
    toolSummaries: false,
  });
  const waiting = await stateWhere(handle, (state) => state.pendingApprovals.length > 0);
  expect(waiting.pendingApprovals).toMatchObject([
    { toolUseId: 'toolu_asked', input: { command: 'echo changed-then-approved' } },
  ]);
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_asked', decision: 'allow' }] });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  expect(toolResultText(lastToolResults(requestOfTurn(harness.fake.requests, 1)!)[0]!)).toContain(
    'changed-then-approved',
  );
  expect(toolResultText(lastToolResults(requestOfTurn(harness.fake.requests, 2)!)[0]!)).toContain(
    'changed-and-allowed',
  );
});

test('a PostToolUse updatedToolOutput replaces the result the model sees', async () => {
  harness.fake.handler = byTurn([reply([toolUse('Bash', { command: 'echo token=s3cr3t' })]), reply([text('Done.')])]);
  const redact = `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"token=[redacted]"}}'`;
  const handle = await harness.start({
    prompt: 'print the token',
    workdir: makeRepo({}),
    hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: redact }] }] },
    toolSummaries: false,
  });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  const request = requestOfTurn(harness.fake.requests, 1)!;
  expect(toolResultText(lastToolResults(request)[0]!)).toBe('token=[redacted]');
  expect(requestText(request)).not.toContain('s3cr3t');
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  expect(entries).toContainEqual(
    expect.objectContaining({ type: 'hook', event: 'PostToolUse', outcome: 'updated_output' }),
  );
});

test('a prompt hook on PreToolUse denies a call with the small model’s decision; an http hook is noted as not run', async () => {
  const agent = byTurn([reply([toolUse('Bash', { command: 'rm -rf build' })]), reply([text('Done.')])]);
  const handler: FakeHandler = (request) =>
    request.body.model === SMALL_MODEL
      ? reply([text('{"ok": false, "reason": "rm -rf deletes the build; delete files one by one"}')])
      : agent(request);
  harness.fake.handler = handler;
  const workdir = makeRepo({ 'build/out.js': 'x\n' });
  const handle = await harness.start({
    prompt: 'clean up',
    workdir,
    hooks: {
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [{ type: 'prompt', prompt: 'Is this command safe to run? $ARGUMENTS', timeout: 30 }],
        },
      ],
      PostToolUse: [{ hooks: [{ type: 'http', url: 'https://audit.example/hook' }] }],
    },
    toolSummaries: false,
  });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  const judged = harness.fake.requests.filter((request) => request.body.model === SMALL_MODEL);
  expect(judged).toHaveLength(1);
  expect(requestText(judged[0]!)).toContain('Is this command safe to run? {');
  expect(requestText(judged[0]!)).toContain('"tool_input":{"command":"rm -rf build"}');
  const agentRequests = harness.fake.requests.filter((request) => request.body.model !== SMALL_MODEL);
  const denied = lastToolResults(requestOfTurn(agentRequests, 1)!)[0]!;
  expect(denied.is_error).toBe(true);
  expect(toolResultText(denied)).toContain(
    'A PreToolUse hook denied this tool call, so it was not run: rm -rf deletes the build; delete files one by one',
  );
  expect(readFileSync(join(workdir, 'build/out.js'), 'utf8')).toBe('x\n');
  // The http hook is accepted and noted as not run, never fatal.
  const state = await handle.query<AgentState>('state');
  expect(state.skippedSettings).toEqual([
    {
      file: 'input',
      path: 'hooks.PostToolUse.0.hooks.0',
      reason: expect.stringContaining('hook type "http" is not run'),
    },
  ]);
});

test('a Stop prompt hook sends the model back to work with its reason, then lets it stop', async () => {
  const answers = ['{"ok": false, "reason": "Run the tests before you stop."}', '{"ok": true, "reason": ""}'];
  const before = harness.fake.requests.length;
  const agent = byTurn([reply([text('Done.')]), reply([text('Tests pass. Done.')])]);
  harness.fake.handler = (request) =>
    request.body.model === SMALL_MODEL ? reply([text(answers.shift() ?? '{"ok": true}')]) : agent(request);
  const handle = await harness.start({
    prompt: 'fix it',
    workdir: makeRepo({}),
    hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: 'Did the agent run the tests? $ARGUMENTS' }] }] },
    toolSummaries: false,
  });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');
  expect(result.finalText).toBe('Tests pass. Done.');
  const requests = harness.fake.requests.slice(before);
  const agentRequests = requests.filter((request) => request.body.model !== SMALL_MODEL);
  expect(requestText(requestOfTurn(agentRequests, 1)!)).toContain('Run the tests before you stop.');
  const judged = requests.filter((request) => request.body.model === SMALL_MODEL);
  expect(judged).toHaveLength(2);
  expect(requestText(judged[0]!)).toContain('"final_text":"Done."');
});
