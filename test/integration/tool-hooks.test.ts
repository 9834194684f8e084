/**
 * Tool hooks as users configure them (Claude Code's settings format, input `hooks`), against a
 * real worker and sandbox: a PreToolUse policy denies a command with a reason the model sees, a
 * PostToolUse formatter rewrites the file just written and its feedback reaches the model, a hook
 * that asks sends the call through a person's approval, and a repository's hooks run only when trusted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  byTurn,
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

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state');
    if (predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const POLICY = `if grep -q '"command":"rm -rf'; then echo 'rm -rf is not allowed in this repository; delete files one by one' >&2; exit 2; fi`;
// A formatter: it reads the call from stdin, rewrites the file (4-space indents to 2) and says so.
const FORMATTER = `grep -q '"file_path":"src/a.js"' || exit 0; sed -i 's/^    /  /' src/a.js && echo '{"decision":"block","reason":"formatter: reindented src/a.js with 2 spaces"}'`;

test('a PreToolUse hook denies a command with its reason, and a PostToolUse formatter’s feedback reaches the model', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'rm -rf build' })]),
    reply([toolUse('Write', { file_path: 'src/a.js', content: 'function a() {\n    return 1;\n}\n' })]),
    reply([text('Done.')]),
  ]);
  const workdir = makeRepo({ 'build/out.js': 'x\n' });
  const hooks = {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: POLICY }] }],
    PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: FORMATTER, timeout: 30 }] }],
  };
  const handle = await harness.start({ prompt: 'clean up and add a', workdir, hooks, toolSummaries: false });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');

  // By turn, not position: a model call retried on a loaded machine is recorded twice.
  const [afterBash, afterWrite] = [requestOfTurn(harness.fake.requests, 1), requestOfTurn(harness.fake.requests, 2)];
  const denied = lastToolResults(afterBash!)[0]!;
  expect(denied.is_error).toBe(true);
  expect(toolResultText(denied)).toContain(
    'A PreToolUse hook denied this tool call, so it was not run: rm -rf is not allowed in this repository; delete files one by one',
  );
  expect(readFileSync(join(workdir, 'build/out.js'), 'utf8')).toBe('x\n');

  const written = toolResultText(lastToolResults(afterWrite!)[0]!);
  expect(written).toContain('PostToolUse hook feedback:\nformatter: reindented src/a.js with 2 spaces');
  expect(readFileSync(join(workdir, 'src/a.js'), 'utf8')).toBe('function a() {\n  return 1;\n}\n');
  // The formatter's change is in the session's snapshots: what the session changed is the formatted file.
  expect(result.filesChanged).toEqual([{ path: 'src/a.js', change: 'added', linesAdded: 3, linesRemoved: 0 }]);

  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  expect(entries).toContainEqual(
    expect.objectContaining({
      type: 'hook',
      event: 'PreToolUse',
      outcome: 'deny',
      detail: expect.stringContaining('rm -rf is not allowed'),
    }),
  );
  expect(entries).toContainEqual(expect.objectContaining({ type: 'hook', event: 'PostToolUse', outcome: 'feedback' }));
});

test('a PreToolUse hook that asks sends the call to a person even in auto mode', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'echo deployed > deploy.log' }, 'toolu_deploy')]),
    reply([text('Deployed.')]),
  ]);
  const workdir = makeRepo({});
  const ask = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"deploys need a person"}}'`;
  const handle = await harness.start({
    prompt: 'deploy',
    workdir,
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: ask }] }] },
    toolSummaries: false,
  });
  const waiting = await stateWhere(handle, (state) => state.pendingApprovals.length > 0);
  expect(waiting.pendingApprovals).toMatchObject([{ toolUseId: 'toolu_deploy', name: 'Bash' }]);
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_deploy', decision: 'allow' }] });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  expect(readFileSync(join(workdir, 'deploy.log'), 'utf8')).toBe('deployed\n');
});

test("a repository's tool hooks run only when trusted", async () => {
  const settings = JSON.stringify({
    hooks: {
      PreToolUse: [
        { matcher: '*', hooks: [{ type: 'command', command: `echo 'the repository says no' >&2; exit 2` }] },
      ],
    },
  });
  harness.fake.handler = byTurn([reply([toolUse('Bash', { command: 'echo hi' })]), reply([text('ok')])]);
  const untrusted = await harness.run({
    prompt: 'say hi',
    workdir: makeRepo({ '.claude/settings.json': settings }),
    toolSummaries: false,
  });
  expect(untrusted.reason).toBe('completed');
  expect(toolResultText(lastToolResults(harness.fake.requests.at(-1)!)[0]!)).toContain('hi');

  const before = harness.fake.requests.length;
  const trusted = await harness.run({
    prompt: 'say hi',
    workdir: makeRepo({ '.claude/settings.json': settings }),
    trustRepoHooks: true,
    toolSummaries: false,
  });
  expect(trusted.reason).toBe('completed');
  expect(toolResultText(lastToolResults(requestOfTurn(harness.fake.requests.slice(before), 1)!)[0]!)).toContain(
    'the repository says no',
  );
});

test('UserPromptSubmit hooks add context to the task and to messages, and block a message', async () => {
  harness.fake.handler = byTurn([reply([text('Ready.')]), reply([text('Using tabs.')])]);
  const hook = `if grep -q secret; then echo 'no secrets in prompts' >&2; exit 2; fi; echo 'Branch: main'`;
  const handle = await harness.start({
    prompt: 'set up the editor',
    workdir: makeRepo({}),
    interactive: true,
    hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] },
    toolSummaries: false,
  });
  await stateWhere(handle, (state) => state.status === 'waiting_input');
  expect(requestText(harness.fake.requests.at(-1)!)).toContain(
    'set up the editor\n<system-reminder>\nUserPromptSubmit hook additional context: Branch: main',
  );

  await handle.signal('userMessage', { text: 'my secret is 42' });
  await handle.signal('userMessage', { text: 'use tabs' });
  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
  const second = requestText(harness.fake.requests.at(-1)!);
  expect(second).toContain('use tabs');
  expect(second).toContain('UserPromptSubmit hook additional context: Branch: main');
  expect(second).not.toContain('secret');
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  expect(entries).toContainEqual(
    expect.objectContaining({
      type: 'hook',
      event: 'UserPromptSubmit',
      outcome: 'blocked',
      detail: 'no secrets in prompts',
    }),
  );
  await handle.signal('end');
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
});

test('an interrupt while a PostToolUse hook runs stops it, and the call keeps its own result', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Write', { file_path: 'notes.txt', content: 'kept\n' })]),
    reply([text('unreached')]),
  ]);
  const workdir = makeRepo({});
  const slow = 'touch .hook-started; sleep 60';
  const handle = await harness.start({
    prompt: 'write notes',
    workdir,
    hooks: { PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: slow }] }] },
    toolSummaries: false,
  });
  while (!existsSync(join(workdir, '.hook-started'))) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await handle.executeUpdate('interrupt', { args: [{}] })).toEqual({ stopped: 'tools' });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('aborted_tools');
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  expect(entries).toContainEqual(
    expect.objectContaining({
      type: 'tool_result',
      name: 'Write',
      isError: false,
      preview: expect.stringContaining('File created successfully'),
    }),
  );
  expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('kept\n');
});
