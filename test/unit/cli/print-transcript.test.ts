import { formatEntry, formatResult } from '../../../src/cli/print-transcript';

describe("the session's setup as `durable-agent run` prints it", () => {
  test('an unconfined session and skipped repository hooks are said out loud', () => {
    const line = formatEntry({
      type: 'session',
      turn: 0,
      workdir: '/repo',
      sandbox: 'none',
      skippedRepoHooks: ['.agent/settings.json (1 stop hook)'],
    });
    expect(line).toContain("sandbox: none: this session's commands run unconfined, with the worker's privileges");
    expect(line).toContain(
      "repository hooks found and not run (not trusted: input trustRepoHooks, or the worker's AGENT_TRUST_REPO_HOOKS=1): .agent/settings.json (1 stop hook)",
    );
  });

  test('each entry of trusted settings that cannot run is one line: file, path and why', () => {
    const skippedSettings = [
      {
        file: '.claude/settings.json',
        path: 'hooks.Stop.0.hooks.0',
        reason:
          'hook type "agent" is not run (durable-agent runs "command" hooks, and "prompt" hooks of tool events and prompts)',
      },
    ];
    expect(formatEntry({ type: 'session', turn: 0, workdir: '/repo', sandbox: 'bwrap', skippedSettings })).toBe(
      '  ⚑ repository setting not used: .claude/settings.json hooks.Stop.0.hooks.0: hook type "agent" is not run (durable-agent runs "command" hooks, and "prompt" hooks of tool events and prompts)',
    );
  });

  test('the instruction files in the system prompt are named', () => {
    expect(
      formatEntry({
        type: 'session',
        turn: 0,
        workdir: '/repo',
        sandbox: 'bwrap',
        instructionFiles: ['/repo/AGENTS.md'],
      }),
    ).toBe('  ✎ instructions: /repo/AGENTS.md');
  });

  test("the session's network: its mode and allowed domains, and warnings said out loud", () => {
    const filtered = {
      mode: 'filtered' as const,
      allowedDomains: ['github.com', 'pypi.org', 'registry.npmjs.org', 'rubygems.org', 'sum.golang.org'],
    };
    expect(formatEntry({ type: 'session', turn: 0, workdir: '/repo', sandbox: 'bwrap', network: filtered })).toBe(
      "  ⇄ network: filtered, through the worker's proxy to 5 allowed domain(s) (github.com, pypi.org, registry.npmjs.org, rubygems.org, …)",
    );
    const host = {
      mode: 'host' as const,
      warnings: ['network "host": the session\'s commands share the worker\'s network'],
    };
    expect(formatEntry({ type: 'session', turn: 0, workdir: '/repo', sandbox: 'bwrap', network: host })).toBe(
      "  ⇄ network: host (the worker's own network)\n  ⚠ network \"host\": the session's commands share the worker's network",
    );
  });

  test('a sandboxed session without repository hooks prints nothing', () => {
    expect(formatEntry({ type: 'session', turn: 0, workdir: '/repo', sandbox: 'bwrap' })).toBeUndefined();
  });
});

test("a tool hook's say is one line: its event, outcome and the first line of its detail", () => {
  expect(
    formatEntry({
      type: 'hook',
      turn: 1,
      event: 'PreToolUse',
      toolUseId: 'toolu_1',
      outcome: 'deny',
      detail: 'rm -rf is not allowed\nsee policy',
    }),
  ).toBe('  ⚑ PreToolUse hook deny: rm -rf is not allowed');
});

test("a sub-agent type cut down to its parent's tools is one line, with the Task call it belongs to", () => {
  const entry = {
    type: 'sub_agent_tools' as const,
    turn: 1,
    toolUseId: 'toolu_f',
    agentType: 'fixer',
    leftOut: ['Bash', 'Write'],
    detail: 'Sub-agent type fixer asked for Bash, Write; the parent does not have them: left out.',
  };
  expect(formatEntry(entry)).toBe(
    '  ⚑ Sub-agent type fixer asked for Bash, Write; the parent does not have them: left out. (Task toolu_f)',
  );
});

test("a writing sub-agent's merge is one line: files merged, conflicts and where its version is, or why nothing was merged", () => {
  const merge = {
    type: 'worktree_merge' as const,
    turn: 1,
    toolUseId: 'toolu_b',
    workflowId: 'p-task-toolu_b',
    worktree: '/w/worktree-1',
    filesMerged: 2,
    conflicts: ['shared.txt'],
  };
  expect(formatEntry(merge)).toBe(
    '  ⑃ merged p-task-toolu_b: 2 file(s), conflicts in shared.txt (kept in /w/worktree-1)',
  );
  expect(formatEntry({ ...merge, conflicts: [] })).toBe('  ⑃ merged p-task-toolu_b: 2 file(s)');
  expect(formatEntry({ ...merge, conflicts: [], worktreeRemoved: true })).toBe(
    '  ⑃ merged p-task-toolu_b: 2 file(s); worktree /w/worktree-1 removed',
  );
  expect(
    formatEntry({
      ...merge,
      filesMerged: 0,
      conflicts: [],
      error: 'the sub-agent stopped before it finished: aborted_tools',
    }),
  ).toBe(
    '  ⑃ p-task-toolu_b: nothing merged (the sub-agent stopped before it finished: aborted_tools); its files stay in /w/worktree-1',
  );
});

describe('the durable workspace as `durable-agent run` and `watch` print it', () => {
  test('a fork says where it comes from; snapshots that changed files and failed snapshots are shown', () => {
    expect(
      formatEntry({
        type: 'session',
        turn: 2,
        workdir: '/copy',
        sandbox: 'bwrap',
        forkedFrom: { workflowId: 'agent-1', turn: 2 },
      }),
    ).toBe('  ⑂ forked from agent-1 at turn 2 into /copy');
    expect(formatEntry({ type: 'snapshot', turn: 3, ref: 'sha256:x', filesChanged: 2 })).toBe(
      '  ◆ snapshot: 2 file(s) changed',
    );
    expect(formatEntry({ type: 'snapshot', turn: 3, ref: 'sha256:x', filesChanged: 0 })).toBeUndefined();
    expect(formatEntry({ type: 'snapshot', turn: 3, error: 'disk full' })).toBe(
      '  ⚠ snapshot after turn 3 failed: disk full',
    );
  });

  test('the result ends with the diffstat of the session', () => {
    const result = {
      reason: 'completed' as const,
      turnCount: 3,
      finalText: '',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    };
    expect(
      formatResult({
        ...result,
        filesChanged: [{ path: 'src/a.ts', change: 'modified', linesAdded: 2, linesRemoved: 1 }],
      }),
    ).toContain('Files changed:\n src/a.ts | 3 ++-\n 1 file changed, 2 insertions(+), 1 deletion(-)');
    expect(formatResult({ ...result, filesChanged: [] })).toContain('Files changed: none');
    expect(formatResult(result)).not.toContain('Files changed');
  });

  test('a repo session ends with its branch, and why it was not pushed', () => {
    const result = {
      reason: 'completed' as const,
      turnCount: 3,
      finalText: '',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    };
    const commit = 'c0ffee'.repeat(6) + 'abcd';
    expect(formatResult({ ...result, branch: { name: 'durable-agent/s1', commit, pushed: true } })).toContain(
      'Branch: durable-agent/s1 at c0ffeec0ffee, pushed',
    );
    expect(
      formatResult({
        ...result,
        branch: { name: 'durable-agent/s1', commit, pushed: false, pushError: 'permission denied' },
      }),
    ).toContain('not pushed (permission denied)');
    expect(formatResult({ ...result, branch: { name: 'durable-agent/s1', commit, pushed: true } })).not.toContain(
      'Not committed',
    );
  });

  test('what the branch could not hold is listed with its reason', () => {
    const result = {
      reason: 'completed' as const,
      turnCount: 1,
      finalText: '',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    };
    const branch = {
      name: 'durable-agent/s1',
      commit: 'c0ffee'.repeat(7),
      pushed: true,
      notCommitted: [{ path: 'run/pipe', reason: 'a FIFO: git cannot hold one' }],
    };
    expect(formatResult({ ...result, branch })).toContain('Not committed:\n  run/pipe: a FIFO: git cannot hold one');
  });
});

test('a dropped signal is a warning naming the signal and the problem', () => {
  const entry = {
    type: 'dropped_signal' as const,
    turn: 2,
    signal: 'userMessage',
    problem: 'text: expected string, received number',
  };
  expect(formatEntry(entry)).toBe('  ⚠ signal userMessage dropped: text: expected string, received number');
});

test('a message sent with send is printed as the turn takes it', () => {
  expect(formatEntry({ type: 'user_message', turn: 3, text: 'Also a note' })).toBe('▶ message: Also a note');
});

test('a background command is a line when it starts and one when it ends', () => {
  const entry = { type: 'background' as const, turn: 1, taskId: 'b1', description: 'Build the project' };
  expect(formatEntry({ ...entry, status: 'running' })).toBe('  ⧗ background b1 running: Build the project');
  expect(formatEntry({ ...entry, status: 'lost' })).toBe('  ⧗ background b1 lost: Build the project');
});
