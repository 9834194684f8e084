/**
 * Records the histories that test/replay replays: one per loop path, from real runs against a
 * real dev server and the fake model. Run after a deliberate change of workflow behaviour, and
 * keep the old files (renamed with a version prefix, e.g. v1-…): running workflows still have
 * the old histories, and `patched()` branches must keep replaying them.
 *
 *   npm run record-histories                # every scenario
 *   npm run record-histories -- max-turns   # only the ones named
 *   npm run record-histories -- --prefix plan-rules- max-turns   # written as plan-rules-max-turns.json
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { parseArgs, promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { AgentState } from '../src/shared/contract';
import { startDevServer } from '../src/dev-server/dev-server';
import { resolveTemporalCli } from '../src/dev-server/temporal-cli';
import { apiError, byTurn, isCompaction, reply, text, toolUse, type FakeHandler } from '../test/support/fake-anthropic';
import { freePort } from '../test/support/global-setup';
import { Harness, makeRepo } from '../test/support/harness';
import { PROJECT_ROOT, WORKFLOW_BUNDLE_PATH } from '../test/support/paths';

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');

interface Scenario {
  name: string;
  files: Record<string, string>;
  handler: FakeHandler;
  input?: Record<string, unknown>;
  /** Steers the running session (signals, updates) before its result is awaited. */
  drive?: (handle: WorkflowHandle) => Promise<void>;
}

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<void> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function sequence(replies: (() => ReturnType<FakeHandler>)[]): FakeHandler {
  let next = 0;
  return () => (replies[next++] ?? (() => reply([text('(end)')])))();
}

const scenarios: Scenario[] = [
  {
    name: 'tools-parallel-edit-bash',
    files: { 'src/config.js': 'function parseConfig() {}\nmodule.exports = { parseConfig };\n', 'src/main.js': "require('./config').parseConfig();\n" },
    handler: byTurn([
      reply([text('Reading.'), toolUse('Read', { file_path: 'src/config.js' }), toolUse('Read', { file_path: 'src/main.js' }), toolUse('Glob', { pattern: '**/*.js' })]),
      reply([toolUse('Edit', { file_path: 'src/config.js', old_string: 'parseConfig', new_string: 'loadConfig', replace_all: true })]),
      reply([toolUse('Bash', { command: 'node -e "require(\'./src/config\')"', description: 'Load the module' })]),
      reply([text('Done.')]),
    ]),
  },
  {
    name: 'tool-errors-and-sibling-cancel',
    files: { 'a.txt': 'a\na\n' },
    handler: byTurn([
      reply([toolUse('Read', { path: 'a.txt' }), toolUse('Nope', {}), toolUse('Edit', { file_path: 'a.txt', old_string: 'a', new_string: 'b' })]),
      reply([toolUse('Bash', { command: 'exit 1' }), toolUse('Write', { file_path: 'b.txt', content: 'b' })]),
      reply([text('Gave up.')]),
    ]),
  },
  {
    name: 'model-retries-then-model-error',
    files: {},
    handler: (() => {
      let calls = 0;
      return () => {
        calls++;
        if (calls === 1) return apiError(529, 'overloaded_error', 'Overloaded');
        if (calls === 2) return reply([toolUse('Glob', { pattern: '*' })]);
        return apiError(400, 'invalid_request_error', 'something is wrong with the request');
      };
    })(),
  },
  {
    name: 'max-turns',
    files: { 'a.txt': 'a' },
    handler: () => reply([toolUse('Read', { file_path: 'a.txt' })]),
    input: { maxTurns: 2 },
  },
  {
    name: 'prompt-too-long',
    files: {},
    handler: () => apiError(400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum'),
  },
  {
    // One session through every recovery branch that lets it go on: output escalation and
    // recovery, overload fallback, autocompact, context collapse, reactive compaction.
    name: 'recovery-every-branch',
    files: {
      ...Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`f${index}.txt`, `${String(index).repeat(39)}\n`.repeat(200)])),
      ...Object.fromEntries(Array.from({ length: 4 }, (_, index) => [`g${index}.txt`, `small ${index}\n`])),
    },
    input: { contextWindowTokens: 30_000, fallbackModel: 'claude-haiku-5-5', fallbackAfterOverloads: 2 },
    handler: (() => {
      let phase = 0;
      let compactions = 0;
      let bigReads = 0;
      let smallReads = 0;
      let refusals = 0;
      return (request) => {
        if (isCompaction(request)) {
          compactions++;
          return reply([text(`<summary>Summary ${compactions}: read the files so far.</summary>`)]);
        }
        switch (phase++) {
          case 0:
          case 1:
            return reply([text(`long answer part ${phase}`)], 'max_tokens');
          case 2:
            return reply([toolUse('Read', { file_path: 'g0.txt' })]);
          case 3:
          case 4:
            return apiError(529, 'overloaded_error', 'Overloaded');
        }
        if (compactions === 0) return reply([toolUse('Read', { file_path: `f${bigReads++}.txt` })]);
        if (smallReads < 4) return reply([toolUse('Read', { file_path: `g${smallReads++}.txt` })]);
        if (refusals < 2) {
          refusals++;
          return apiError(400, 'invalid_request_error', 'prompt is too long: 31000 tokens > 30000 maximum');
        }
        return reply([text('Done after every recovery.')]);
      };
    })(),
  },
  {
    name: 'steering-stop-hook-and-budget',
    files: { 'a.txt': 'a\n' },
    input: {
      tokenBudget: 5000,
      stopHooks: [{ command: `if grep -q '"stop_hook_active":true'; then exit 0; fi; echo "add a test first" >&2; exit 2` }],
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
      await stateWhere(handle, (state) => state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_record_write'));
      await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_record_write', decision: 'allow' }] });
      await stateWhere(handle, (state) => state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_record_rm'));
      await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_record_rm', decision: 'deny', feedback: 'keep it' }] });
      await stateWhere(handle, (state) => state.status === 'waiting_input');
      await handle.signal('userMessage', { text: 'Thanks.' });
      await stateWhere(handle, (state) => state.status === 'waiting_input' && state.turn === 4);
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
    name: 'recovery-media-too-large',
    files: {},
    handler: () => apiError(400, 'invalid_request_error', 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum'),
  },
];

async function main(): Promise<void> {
  const cli = await resolveTemporalCli(console.log);
  if (!cli) throw new Error('No Temporal CLI');
  const port = await freePort();
  const server = await startDevServer({ cliPath: cli.path, port });
  process.env.TEMPORAL_ADDRESS = server.address;
  mkdirSync(join(WORKFLOW_BUNDLE_PATH, '..'), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, (await bundleWorkflowCode({ workflowsPath: require.resolve('../src/workflows') })).code);
  process.env.AGENT_WORKFLOW_BUNDLE = WORKFLOW_BUNDLE_PATH;
  mkdirSync(FIXTURES, { recursive: true });
  try {
    const { values, positionals: only } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { prefix: { type: 'string', default: '' } } });
    const prefix = values.prefix;
    for (const scenario of scenarios.filter((candidate) => only.length === 0 || only.includes(candidate.name))) {
      const harness = await Harness.start(scenario.handler);
      await harness.startWorker();
      const handle = await harness.start({ prompt: `Scenario ${scenario.name}`, workdir: makeRepo(scenario.files), ...scenario.input });
      await scenario.drive?.(handle);
      const result = await handle.result();
      // The Temporal CLI's JSON is the format users export for replay too (`historyFromJSON` reads it).
      const show = async (runId: string) =>
        (
          await promisify(execFile)(cli.path, ['workflow', 'show', '--address', server.address, '--workflow-id', handle.workflowId, '--run-id', runId, '--output', 'json'], {
            maxBuffer: 64 * 1024 * 1024,
          })
        ).stdout;
      const stdout = await show(handle.firstExecutionRunId);
      writeFileSync(join(FIXTURES, `${prefix}${scenario.name}.json`), stdout);
      const lastRunId = (await handle.describe()).runId;
      if (lastRunId !== handle.firstExecutionRunId) writeFileSync(join(FIXTURES, `${prefix}${scenario.name}-last-run.json`), await show(lastRunId));
      const transitions = (await handle.query<{ transitions: string[]; contextEdits: string[] }>('state').catch(() => undefined)) ?? { transitions: [], contextEdits: [] };
      console.log(
        `${scenario.name}: ${result.reason}, ${(JSON.parse(stdout) as { events: unknown[] }).events.length} events, ` +
          `transitions ${transitions.transitions.join(' ')}; context edits ${transitions.contextEdits.join(' ')}`,
      );
      await harness.stop();
    }
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
