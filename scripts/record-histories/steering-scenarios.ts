/** The recorded paths of steering: hooks, budget, approvals, messages, interrupts, cancellation, continue-as-new. */
import { reply, text, toolUse, type FakeReply } from '../../test/support/fake-anthropic';
import { type Scenario, sequence, stateWhere } from './scenario';

export const steeringScenarios: Scenario[] = [
  {
    name: 'steering-stop-hook-and-budget',
    files: { 'a.txt': 'a\n' },
    input: {
      tokenBudget: 5000,
      stopHooks: [
        { command: `if grep -q '"stop_hook_active":true'; then exit 0; fi; echo "add a test first" >&2; exit 2` },
      ],
    },
    handler: sequence([
      () => ({ ...reply([text('done')]), outputTokens: 1000 }),
      () => ({ ...reply([toolUse('Read', { file_path: 'a.txt' })]), outputTokens: 500 }),
      () => ({ ...reply([text('done, with a test')]), outputTokens: 500 }),
      () => ({ ...reply([text('more work')]), outputTokens: 1500 }),
      () => ({ ...reply([text('even more')]), outputTokens: 1500 }),
    ]),
  },
  {
    name: 'steering-approvals-and-messages',
    files: { 'keep.txt': 'keep\n' },
    input: { permissionMode: 'ask', interactive: true, approvalTimeoutMs: 60_000 },
    handler: sequence([
      () => reply([toolUse('Write', { file_path: 'new.txt', content: 'new' }, 'toolu_record_write')]),
      () => reply([toolUse('Bash', { command: 'rm keep.txt' }, 'toolu_record_rm')]),
      () => reply([text('Wrote new.txt and kept keep.txt.')]),
      () => reply([text('Noted.')]),
    ]),
    drive: async (handle) => {
      await stateWhere(handle, (state) =>
        state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_record_write'),
      );
      await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_record_write', decision: 'allow' }] });
      await stateWhere(handle, (state) =>
        state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_record_rm'),
      );
      await handle.executeUpdate('approveTool', {
        args: [{ toolUseId: 'toolu_record_rm', decision: 'deny', feedback: 'keep it' }],
      });
      await stateWhere(handle, (state) => state.status === 'waiting_input');
      await handle.signal('userMessage', { text: 'Thanks.' });
      await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 4);
      await handle.signal('end');
    },
  },
  {
    // Since patched('malformed-signals-dropped'): malformed signals are dropped with a note, and the session goes on.
    name: 'malformed-signals',
    files: {},
    input: { interactive: true },
    handler: sequence([() => reply([text('Ready.')]), () => reply([text('Noted.')])]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.status === 'waiting_input');
      await handle.signal('userMessage', null);
      await handle.signal('interrupt', 5);
      await handle.signal('approveTool', { toolUseId: 'toolu_none', decision: 'allow', feedback: 42 });
      await handle.signal('subAgentApprovals', {});
      await handle.signal('userMessage', { text: 'Thanks.' });
      await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 2);
      await handle.signal('end');
    },
  },
  {
    name: 'steering-interrupt',
    files: {},
    handler: sequence([() => reply([toolUse('Bash', { command: 'sleep 60' })])]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.status === 'running_tools');
      await handle.executeUpdate('interrupt', { args: [{}] });
    },
  },
  {
    // Two runs: the first continues as new after one turn, carrying a queued message.
    name: 'continue-as-new',
    files: { 'a.txt': 'a\n' },
    input: { continueAsNewAfterTurns: 1 },
    handler: sequence([
      () => reply([toolUse('Read', { file_path: 'a.txt' })]),
      () => reply([toolUse('Glob', { pattern: '*' })]),
      () => reply([text('Done in the second run.')]),
    ]),
  },
  {
    name: 'stop-hook-prevented',
    files: {},
    input: { stopHooks: [{ command: `echo '{"continue":false,"stopReason":"release freeze"}'` }] },
    handler: () => reply([text('done')]),
  },
  {
    name: 'hook-stopped',
    files: {},
    input: { stopHooks: [{ command: `echo '{"decision":"block","reason":"not yet"}'` }] },
    handler: () => reply([text('done, I promise')]),
  },
  {
    // Since patched('stop-hook-limit'): a stop hook that keeps blocking ends the run with its own reason.
    name: 'stop-hook-limit',
    files: {},
    input: { stopHooks: [{ command: `echo '{"decision":"block","reason":"not yet"}'` }] },
    handler: () => reply([text('done, I promise')]),
  },
  {
    // Tool hooks: a PreToolUse hook denies a command, a PostToolUse formatter rewrites a file and
    // says so, a UserPromptSubmit hook adds context, and a PreToolUse continue:false ends the run (hook_stopped).
    name: 'tool-hooks',
    files: { 'a.txt': 'a\n' },
    input: {
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "Branch: main"' }] }],
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: `if grep -q 'rm -rf'; then echo 'rm -rf is not allowed here' >&2; exit 2; fi`,
              },
            ],
          },
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: `if grep -q 'enough'; then echo '{"continue":false,"stopReason":"the hook says enough"}'; fi`,
              },
            ],
          },
        ],
        PostToolUse: [
          {
            matcher: 'Write|Edit',
            hooks: [
              {
                type: 'command',
                command: `sed -i 's/  */ /g' b.txt && echo '{"decision":"block","reason":"b.txt reformatted"}'`,
              },
            ],
          },
        ],
      },
    },
    handler: sequence([
      () => reply([toolUse('Bash', { command: 'rm -rf build' })]),
      () => reply([toolUse('Write', { file_path: 'b.txt', content: 'x    y\n' })]),
      () => reply([toolUse('Bash', { command: 'echo enough' })]),
      () => reply([text('not reached')]),
    ]),
  },
  {
    name: 'diminishing-returns',
    files: {},
    input: { tokenBudget: 100_000 },
    handler: sequence([
      () => ({ ...reply([text('a first part')]), outputTokens: 1_000 }),
      () => ({ ...reply([text('a little more')]), outputTokens: 300 }),
      () => ({ ...reply([text('a bit more')]), outputTokens: 200 }),
      () => ({ ...reply([text('hardly anything')]), outputTokens: 100 }),
    ]),
  },
  {
    name: 'approval-timeout',
    files: {},
    input: { permissionMode: 'ask', approvalTimeoutMs: 1_000 },
    handler: sequence([
      () => reply([toolUse('Bash', { command: 'echo hi' })]),
      () => reply([text('Went on without it.')]),
    ]),
  },
  {
    // An interrupt while the model responds: aborted_streaming.
    name: 'interrupt-model',
    files: {},
    handler: () => ({ kind: 'hold', release: new Promise<FakeReply>(() => {}) }),
    drive: async (handle, harness) => {
      await harness.fake.waitForRequests(1);
      await handle.executeUpdate('interrupt', { args: [{}] });
    },
  },
  {
    // The workflow cancelled (temporal workflow cancel) while a command runs: a result all the same.
    name: 'cancelled',
    files: {},
    handler: sequence([() => reply([toolUse('Bash', { command: 'sleep 60' })])]),
    drive: async (handle) => {
      await stateWhere(handle, (state) => state.status === 'running_tools');
      await handle.cancel();
    },
  },
];
