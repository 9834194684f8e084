/**
 * Claude Code's permission modes and rules in a running session (docs/permissions.md): a deny
 * rule of a trusted repository's settings refuses a Bash call and a Read of `.env`, an ask rule
 * waits for a person even where nothing else would, and acceptEdits lets Edit through while Bash
 * waits. Real dev server, real worker, fake model.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import {
  byTurn,
  lastToolResults,
  reply,
  type RecordedRequest,
  text,
  toolResultText,
  toolUse,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

/** Polls the `state` query until the predicate holds (the session's own progress, not a timer). */
async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The fake's requests, and the tool result of a call as the model got it back (by its tool_use id). */
function recorded(): {
  requests: RecordedRequest[];
  resultOf: (toolUseId: string) => { text: string; isError: boolean };
} {
  const requests: RecordedRequest[] = [];
  const handler = harness.fake.handler;
  harness.fake.handler = (request) => {
    requests.push(request);
    return handler(request);
  };
  return {
    requests,
    resultOf: (toolUseId) => {
      const result = requests
        .flatMap((request) => lastToolResults(request))
        .find((block) => block.tool_use_id === toolUseId);
      if (!result) throw new Error(`no tool_result for ${toolUseId} in ${requests.length} requests`);
      return { text: toolResultText(result), isError: result.is_error === true };
    },
  };
}

test("a trusted repository's deny rules refuse `rm -rf build && ls` and a Read of .env, in the default mode", async () => {
  const workdir = makeRepo({
    '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Bash(rm -rf:*)', 'Read(./.env)'] } }),
    '.env': 'API_KEY=secret\n',
    'build/out.js': 'built\n',
  });
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'rm -rf build && ls' }, 'toolu_rm')]),
    reply([toolUse('Read', { file_path: '.env' }, 'toolu_env')]),
    reply([toolUse('Bash', { command: 'ls' }, 'toolu_ls')]),
    reply([text('Done.')]),
  ]);
  const { resultOf } = recorded();
  const handle = await harness.start({ prompt: 'clean up', workdir, trustRepoHooks: true, toolSummaries: false });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');

  expect(existsSync(join(workdir, 'build/out.js'))).toBe(true);
  expect(resultOf('toolu_rm')).toEqual({
    isError: true,
    text: expect.stringContaining(
      'Permission to use Bash with command rm -rf build && ls has been denied by rule Bash(rm -rf:*) from .claude/settings.json.',
    ),
  });
  expect(resultOf('toolu_env')).toEqual({
    isError: true,
    text: expect.stringContaining('has been denied by rule Read(./.env) from .claude/settings.json'),
  });
  expect(resultOf('toolu_env').text).not.toContain('secret');
  // Nothing else is refused: the session's mode (auto) runs the rest.
  expect(resultOf('toolu_ls')).toMatchObject({ isError: false, text: expect.stringContaining('build') });
});

test('an ask rule waits for a person even in bypassPermissions; the approval runs the call', async () => {
  const workdir = makeRepo({ 'a.txt': 'a\n' });
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'touch asked.txt' }, 'toolu_touch')]),
    reply([toolUse('Bash', { command: 'ls' }, 'toolu_ls')]),
    reply([text('Done.')]),
  ]);
  const { resultOf } = recorded();
  const handle = await harness.start({
    prompt: 'touch a file',
    workdir,
    permissionMode: 'bypassPermissions',
    permissions: { ask: ['Bash(touch:*)'] },
    toolSummaries: false,
  });
  const waiting = await stateWhere(handle, (state) => state.pendingApprovals.length > 0);
  expect(waiting).toMatchObject({
    status: 'waiting_approval',
    pendingApprovals: [{ toolUseId: 'toolu_touch', name: 'Bash' }],
  });
  expect(existsSync(join(workdir, 'asked.txt'))).toBe(false);
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_touch', decision: 'allow' }] });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  expect(existsSync(join(workdir, 'asked.txt'))).toBe(true);
  expect(resultOf('toolu_touch').isError).toBe(false);
  // `ls` matches no ask rule: it ran without a wait.
  expect(resultOf('toolu_ls')).toMatchObject({ isError: false, text: expect.stringContaining('asked.txt') });
});

test('acceptEdits: Edit goes ahead, Bash waits for a person (denied here)', async () => {
  const workdir = makeRepo({ 'a.txt': 'old\n' });
  harness.fake.handler = byTurn([
    reply([toolUse('Read', { file_path: 'a.txt' }, 'toolu_read')]),
    reply([toolUse('Edit', { file_path: 'a.txt', old_string: 'old', new_string: 'new' }, 'toolu_edit')]),
    reply([toolUse('Bash', { command: 'touch b.txt' }, 'toolu_bash')]),
    reply([text('Done.')]),
  ]);
  const { resultOf } = recorded();
  const handle = await harness.start({ prompt: 'edit', workdir, permissionMode: 'acceptEdits', toolSummaries: false });
  const waiting = await stateWhere(handle, (state) => state.pendingApprovals.length > 0);
  expect(waiting.pendingApprovals).toEqual([expect.objectContaining({ toolUseId: 'toolu_bash', name: 'Bash' })]);
  // The Edit did not wait: it is done before the Bash call asks.
  expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('new\n');
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_bash', decision: 'deny' }] });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  expect(resultOf('toolu_edit').isError).toBe(false);
  expect(resultOf('toolu_bash')).toMatchObject({
    isError: true,
    text: expect.stringContaining('The user denied this tool call'),
  });
  expect(existsSync(join(workdir, 'b.txt'))).toBe(false);
});
