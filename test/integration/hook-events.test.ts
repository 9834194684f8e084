/**
 * Claude Code's hook events beyond the tool hooks, against a real worker and sandbox (issue 25):
 * a SessionStart hook's output reaches the model, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`
 * finds the repository's guard, a failed call runs its PostToolUseFailure hooks and not its
 * PostToolUse ones, a PreCompact hook runs before an autocompaction, and an event we do not run
 * is listed as skipped instead of failing the session.
 */
import { chmodSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import {
  byTurn,
  isCompaction,
  lastToolResults,
  reply,
  requestOfTurn,
  requestText,
  text,
  toolResultText,
  toolUse,
  turnOf,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

const harness = fileHarness();

const command = (line: string) => ({ type: 'command', command: line });

test("a SessionStart hook's output reaches the model, and hooks see CLAUDE_PROJECT_DIR = the workdir", async () => {
  harness.fake.handler = byTurn([reply([toolUse('Bash', { command: 'rm -rf build' })]), reply([text('Done.')])]);
  const guard = `#!/bin/sh\nif grep -q 'rm -rf'; then echo "guard: no rm -rf" >&2; exit 2; fi\n`;
  const workdir = makeRepo({ '.claude/hooks/guard.sh': guard, 'build/out.js': 'x\n' });
  chmodSync(join(workdir, '.claude/hooks/guard.sh'), 0o755);
  const handle = await harness.start({
    prompt: 'clean up',
    workdir,
    toolSummaries: false,
    hooks: {
      SessionStart: [
        {
          matcher: 'startup',
          hooks: [command('cat > "$CLAUDE_PROJECT_DIR/.session-start.json"; echo "Project dir: $CLAUDE_PROJECT_DIR"')],
        },
      ],
      PreToolUse: [{ matcher: 'Bash', hooks: [command('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh')] }],
      ConfigChange: [{ hooks: [command('true')] }],
    },
  });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');
  const real = realpathSync(workdir);

  // The hook's context is in the first model call, after the task.
  const first = requestOfTurn(harness.fake.requests, 0)!;
  expect(requestText(first)).toContain(`SessionStart hook additional context: Project dir: ${real}`);
  const input = JSON.parse(readFileSync(join(workdir, '.session-start.json'), 'utf8'));
  expect(input).toMatchObject({
    hook_event_name: 'SessionStart',
    source: 'startup',
    cwd: real,
    permission_mode: 'bypassPermissions',
  });

  // The repository's guard ran from "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh and denied the call.
  const denied = lastToolResults(requestOfTurn(harness.fake.requests, 1)!)[0]!;
  expect(denied.is_error).toBe(true);
  expect(toolResultText(denied)).toContain('guard: no rm -rf');
  expect(readFileSync(join(workdir, 'build/out.js'), 'utf8')).toBe('x\n');

  // An event we do not run is listed as skipped, with why; the session ran.
  const state = await handle.query<AgentState>('state');
  expect(state.skippedSettings).toContainEqual({
    file: 'input',
    path: 'hooks.ConfigChange',
    reason: expect.stringContaining('not run by durable-agent'),
  });
});

test('a failed call runs its PostToolUseFailure hooks and not its PostToolUse hooks; a call that worked the other way round', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Read', { file_path: 'missing.txt' }, 'toolu_missing'), toolUse('Read', { file_path: 'a.txt' })]),
    reply([text('Done.')]),
  ]);
  const workdir = makeRepo({ 'a.txt': 'hello\n' });
  const handle = await harness.start({
    prompt: 'read',
    workdir,
    toolSummaries: false,
    hooks: {
      PostToolUse: [
        {
          matcher: 'Read',
          hooks: [
            command(
              'input=$(cat); printf "%s" "$input" > "$CLAUDE_PROJECT_DIR/.post.json"; ' +
                'cp "$(printf "%s" "$input" | grep -o \'"transcript_path":"[^"]*"\' | cut -d\'"\' -f4)" "$CLAUDE_PROJECT_DIR/.transcript.jsonl"; ' +
                'echo \'{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"POST-RAN"}}\'',
            ),
          ],
        },
      ],
      PostToolUseFailure: [
        {
          matcher: 'Read',
          hooks: [command('cat > "$CLAUDE_PROJECT_DIR/.failure.json"; echo FAILURE-SEEN >&2; exit 2')],
        },
      ],
    },
  });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  const [failed, worked] = lastToolResults(requestOfTurn(harness.fake.requests, 1)!);
  expect(failed!.is_error).toBe(true);
  expect(toolResultText(failed!)).toContain('PostToolUseFailure hook feedback:\nFAILURE-SEEN');
  expect(toolResultText(failed!)).not.toContain('POST-RAN');
  expect(toolResultText(worked!)).toContain('POST-RAN');
  expect(toolResultText(worked!)).not.toContain('FAILURE-SEEN');

  const failure = JSON.parse(readFileSync(join(workdir, '.failure.json'), 'utf8'));
  expect(failure).toMatchObject({
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Read',
    tool_use_id: 'toolu_missing',
    error: expect.any(String),
  });
  const post = JSON.parse(readFileSync(join(workdir, '.post.json'), 'utf8'));
  expect(post).toMatchObject({
    hook_event_name: 'PostToolUse',
    tool_response: { type: 'text', file: { content: 'hello', numLines: 1, startLine: 1 } },
  });
  // transcript_path: the conversation so far as JSONL, readable in the hook's sandbox, outside the workdir.
  expect(post.transcript_path.startsWith(realpathSync(workdir))).toBe(false);
  const lines = readFileSync(join(workdir, '.transcript.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines[0]).toEqual({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'read' }] } });
  expect(lines[1]).toMatchObject({
    type: 'assistant',
    message: { role: 'assistant', content: expect.arrayContaining([expect.objectContaining({ type: 'tool_use' })]) },
  });
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  expect(entries).toContainEqual(
    expect.objectContaining({ type: 'hook', event: 'PostToolUseFailure', outcome: 'feedback' }),
  );
});

test('a PreCompact hook runs before an autocompaction, and a SessionStart hook of source compact adds context after it', async () => {
  const files = Object.fromEntries(
    Array.from({ length: 6 }, (_, index) => [`f${index}.txt`, `${String(index).repeat(39)}\n`.repeat(200)]),
  );
  const workdir = makeRepo(files);
  const before = harness.fake.requests.length;
  harness.fake.handler = (request) => {
    if (isCompaction(request))
      return reply([text('<analysis>x</analysis>\n<summary>\nSUMMARY-MARKER: read files.\n</summary>')]);
    if (requestText(request).includes('SUMMARY-MARKER')) return reply([text('Continued.')]);
    return reply([toolUse('Read', { file_path: `f${turnOf(request)}.txt` })]);
  };
  const handle = await harness.start({
    prompt: 'Do the task',
    workdir,
    contextWindowTokens: 30_000,
    toolSummaries: false,
    hooks: {
      PreCompact: [{ matcher: 'auto', hooks: [command('cat > "$CLAUDE_PROJECT_DIR/.precompact.json"')] }],
      SessionStart: [{ matcher: 'compact', hooks: [command('echo "Re-read CONVENTIONS.md"')] }],
    },
  });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');
  const state = await handle.query<AgentState>('state');
  expect(state.contextEdits).toContain('autocompact');
  const precompact = JSON.parse(readFileSync(join(workdir, '.precompact.json'), 'utf8'));
  expect(precompact).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null });
  // The SessionStart (compact) context rides on the first call after the summary; not on the first call (startup).
  const requests = harness.fake.requests.slice(before);
  const afterSummary = requests.find(
    (request) => !isCompaction(request) && requestText(request).includes('SUMMARY-MARKER'),
  )!;
  expect(requestText(afterSummary)).toContain('SessionStart hook additional context: Re-read CONVENTIONS.md');
  expect(requestText(requests[0]!)).not.toContain('Re-read CONVENTIONS.md');
});

test('a PermissionRequest hook answers for the person, Notification hooks hear of a wait, SessionEnd hooks of the end', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'echo hi > out.txt' })]),
    reply([toolUse('Write', { file_path: 'notes.txt', content: 'n\n' }, 'toolu_write')]),
    reply([text('Done.')]),
  ]);
  const workdir = makeRepo({});
  const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`;
  const handle = await harness.start({
    prompt: 'write things',
    workdir,
    permissionMode: 'ask',
    toolSummaries: false,
    hooks: {
      PermissionRequest: [{ matcher: 'Bash', hooks: [command(allow)] }],
      Notification: [{ matcher: 'permission_prompt', hooks: [command('cat > "$CLAUDE_PROJECT_DIR/.notified.json"')] }],
      SessionEnd: [{ hooks: [command('cat > "$CLAUDE_PROJECT_DIR/.end.json"')] }],
    },
  });
  // The Bash call ran without a person (its hook allowed it); the Write waits, and the notifier heard of it.
  for (;;) {
    const state = await handle.query<AgentState>('state');
    if (state.pendingApprovals.length > 0) {
      expect(state.pendingApprovals).toMatchObject([{ toolUseId: 'toolu_write', name: 'Write' }]);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(readFileSync(join(workdir, 'out.txt'), 'utf8')).toBe('hi\n');
  expect(JSON.parse(readFileSync(join(workdir, '.notified.json'), 'utf8'))).toMatchObject({
    hook_event_name: 'Notification',
    notification_type: 'permission_prompt',
    permission_mode: 'default',
  });
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_write', decision: 'allow' }] });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  expect(JSON.parse(readFileSync(join(workdir, '.end.json'), 'utf8'))).toMatchObject({
    hook_event_name: 'SessionEnd',
    reason: 'completed',
  });
  const { entries } = await handle.query(transcriptQuery, { fromIndex: 0, limit: 500 });
  expect(entries).toContainEqual(
    expect.objectContaining({ type: 'hook', event: 'PermissionRequest', outcome: 'allow' }),
  );
});

test('a sub-agent runs its parent’s SubagentStart hooks (context for it) and SubagentStop hooks (which can block its stop)', async () => {
  const workdir = makeRepo({});
  const before = harness.fake.requests.length;
  const isChild = (request: { body: { messages: { content: unknown }[] } }) =>
    JSON.stringify(request.body.messages[0]!.content).includes('Look for TODOs');
  harness.fake.handler = (request) => {
    if (!isChild(request))
      return turnOf(request) === 0
        ? reply([toolUse('Task', { description: 'todos', prompt: 'Look for TODOs' }, 'toolu_task')])
        : reply([text('Parent done.')]);
    return reply([text(turnOf(request) === 0 ? 'No TODOs.' : 'Checked again: no TODOs.')]);
  };
  // SubagentStop blocks the sub-agent's first stop (no marker yet), then lets it stop.
  const stop =
    'cat > "$CLAUDE_PROJECT_DIR/.subagent-stop.json"; if [ ! -e "$CLAUDE_PROJECT_DIR/.stopped-once" ]; then ' +
    'touch "$CLAUDE_PROJECT_DIR/.stopped-once"; echo "check again" >&2; exit 2; fi';
  const handle = await harness.start({
    prompt: 'find TODOs with a helper',
    workdir,
    toolSummaries: false,
    hooks: {
      SubagentStart: [{ hooks: [command('echo "Helpers: report file paths"')] }],
      SubagentStop: [{ hooks: [command(stop)] }],
    },
  });
  expect(((await handle.result()) as AgentResult).reason).toBe('completed');
  const child = harness.fake.requests.slice(before).filter(isChild);
  expect(requestText(child[0]!)).toContain('SubagentStart hook additional context: Helpers: report file paths');
  expect(requestText(child.at(-1)!)).toContain('check again');
  expect(JSON.parse(readFileSync(join(workdir, '.subagent-stop.json'), 'utf8'))).toMatchObject({
    hook_event_name: 'SubagentStop',
    agent_id: 'toolu_task',
    agent_type: 'general-purpose',
  });
});
