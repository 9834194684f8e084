/**
 * Determinism guard: every recorded history (test/fixtures/histories) must replay against the
 * current workflow code, and every way a session can end or go on must have one. A change that
 * would break running workflows fails here; gate such a change with patched() and record the new
 * path too (npm run record-histories).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/workflow-bundle';
import { TERMINAL_REASONS, TRANSITIONS } from '../../src/shared/contract';
import { type Coverage, coverageOf } from './coverage';
import { asItsRunSawIt } from '../support/history';
import { DROPPED_WORKFLOW_SPANS } from '../../src/telemetry/tracing';
import * as features from '../../src/workflows/core/features';
import {
  RUN_PATCHES,
  MALFORMED_SIGNALS_PATCH,
  MAX_BUDGET_PATCH,
  MCP_CALL_SNAPSHOT_PATCH,
  READ_STATE_PATCH,
  RESET_AWARE_WORKSPACE_PATCH,
  SELF_LABELLED_BATCH_PATCH,
  SUB_AGENT_BOUNDS_PATCH,
  TRANSCRIPT_BY_REFERENCE_PATCH,
  WORKDIR_LEASE_PATCH,
  WORKDIR_LEASE_UNTIL_END_PATCH,
} from '../../src/workflows/core/features';
import { MAX_INLINE_PROMPT_BYTES } from '../../src/shared/limits';

jest.setTimeout(120_000);

const FIXTURES = join(__dirname, '..', 'fixtures', 'histories');
/** Made once, as the worker makes it (shared modules preloaded), for every replay. */
let bundle: { code: string };
beforeAll(async () => {
  bundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: new DefaultLogger('WARN') });
});
/**
 * Histories in a folder per generation of workflow code (test/fixtures/histories/README.md):
 * `current/`, and `before-<patch id>/` for those recorded before that patch, which go when it is
 * retired. Named by their path in it, e.g. `before-hardening/max-turns.json`.
 */
const folders = readdirSync(FIXTURES, { withFileTypes: true }).filter((entry) => entry.isDirectory());
const files = folders.flatMap((folder) =>
  readdirSync(join(FIXTURES, folder.name))
    .filter((name) => name.endsWith('.json'))
    .map((name) => `${folder.name}/${name}`),
);

test('histories are in current/ or in before-<patch id>/ of a patch the workflow still asks', () => {
  const patchIds = Object.values(features as Record<string, unknown>).filter(
    (value): value is string => typeof value === 'string',
  );
  const known = new Set([...RUN_PATCHES, ...patchIds]);
  expect(readdirSync(FIXTURES).filter((name) => name.endsWith('.json'))).toEqual([]);
  for (const folder of folders) {
    if (folder.name !== 'current') expect(known).toContain(folder.name.replace(/^before-/, ''));
  }
});

beforeAll(() => {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
});

/** Each path a session can take, and how to tell a history that took it. */
const PATHS: Record<string, (history: Coverage) => boolean> = {
  ...Object.fromEntries(
    TERMINAL_REASONS.map((reason) => [`ends with ${reason}`, (history: Coverage) => history.result?.reason === reason]),
  ),
  ...Object.fromEntries(
    TRANSITIONS.filter((transition) => transition !== 'continued_as_new').map((transition) => [
      `goes on by ${transition}`,
      (history: Coverage) => history.transitions.includes(transition),
    ]),
  ),
  'continues as new': (history) => history.continuedAsNew,
  'is cancelled (temporal workflow cancel) and ends with a result': (history) =>
    history.cancelRequested && history.result !== undefined,
  'waits for an approval that times out': (history) => history.timerFired,
  'runs sub-agents (Task) as child workflows and passes an approval on to one': (history) =>
    history.childCompleted && history.signalledExternal,
  'is a sub-agent that reported its call waiting for approval to its parent': (history) =>
    history.input.parentSession !== undefined && history.signalledExternal,
  "bounds a sub-agent's tools by its own (patched sub-agent-bounds), leaving out what the type asked for beyond them": (
    history,
  ) => history.patches.includes(SUB_AGENT_BOUNDS_PATCH) && history.startedCutDownChild && history.childCompleted,
  'stops a session with sub-agents at max_budget, its sub-agent given its share (patched max-budget)': (history) =>
    history.patches.includes(MAX_BUDGET_PATCH) && history.childCompleted && history.result?.reason === 'max_budget',
  'is a sub-agent that spent its share and ended with max_budget': (history) =>
    history.input.parentSession !== undefined && history.result?.reason === 'max_budget',
  'snapshots the workspace after a stdio MCP call (patched mcp-call-snapshot)': (history) =>
    history.patches.includes(MCP_CALL_SNAPSHOT_PATCH),
  'labels a batch of one Read with its own summary, no small model (patched self-labelled-tool-batch)': (history) =>
    history.patches.includes(SELF_LABELLED_BATCH_PATCH),
  "is a sub-agent whose type was cut down to its parent's tools": (history) =>
    history.input.parentSession?.toolsLeftOut !== undefined && history.result?.reason === 'completed',
  'puts the read-state of the turn back on a rewind (patched read-state-in-checkpoints)': (history) =>
    history.patches.includes(READ_STATE_PATCH) && history.transitions.includes('rewind'),
  "is a fork that starts with its original's read-state": (history) => history.input.fork?.readState !== undefined,
  'drops malformed signals with a note (patched malformed-signals-dropped) and goes on to its result': (history) =>
    history.patches.includes(MALFORMED_SIGNALS_PATCH) && history.result?.reason === 'completed',
  'waits for a busy workdir lease (patched workdir-lease) and runs once it is free': (history) =>
    history.patches.includes(WORKDIR_LEASE_PATCH) && history.timerFired && history.result?.reason === 'completed',
  'takes its workdir lease in prepareSession until it ends (patched workdir-lease-until-session-end), waits while it is busy and runs once it is free':
    (history) =>
      history.patches.includes(WORKDIR_LEASE_UNTIL_END_PATCH) &&
      history.timerFired &&
      history.result?.reason === 'completed',
  'keeps its workdir lease across continue-as-new (a keeper of its own in the next run)': (history) =>
    history.input.resume?.session?.workdirLease !== undefined && history.result?.reason === 'completed',
  'stores its transcript per step (patched transcript-by-reference), the chain carried across continue-as-new': (
    history,
  ) =>
    history.patches.includes(TRANSCRIPT_BY_REFERENCE_PATCH) &&
    typeof history.input.resume?.transcriptChain?.head === 'string' &&
    history.result?.reason === 'completed',
  'is a run made by temporal workflow reset that put the files back before its first tool (patched reset-aware-workspace:<run id>)':
    (history) =>
      history.patches.some((patch) => patch.startsWith(`${RESET_AWARE_WORKSPACE_PATCH}:`)) &&
      history.result?.reason === 'completed',
  'ends on a refusal': (history) =>
    history.result?.reason === 'model_error' && (history.result.error ?? '').includes('refusal'),
  'strips media and completes': (history) =>
    history.transitions.includes('media_strip_retry') && history.result?.reason === 'completed',
  'stops nudging at diminishing returns': (history) =>
    history.transitions.filter((transition) => transition === 'token_budget_continuation').length >= 3 &&
    history.result?.reason === 'completed' &&
    history.input.tokenBudget !== undefined &&
    history.result.usage.outputTokens < history.input.tokenBudget * 0.9,
};

const covered = files.map((name) => coverageOf(name, join(FIXTURES, name)));

test.each(Object.keys(PATHS))('a recorded history %s', (path) => {
  expect(covered.filter(PATHS[path]!).map((history) => history.name)).not.toEqual([]);
});

test('the bundle loads zod once for all workflows (preload.ts), not once per workflow', () => {
  // A bare require of a module declared free of side effects is dropped by the bundler (`0;`).
  expect(bundle.code).toMatch(
    /exports\.preloadModules = function preloadModules\(\) \{\s*__webpack_require__\([^)]*src\/workflows\/preload\.ts/,
  );
});

test.each(files)('%s replays without non-determinism', async (name) => {
  const history = asItsRunSawIt(JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')));
  await expect(
    Worker.runReplayHistory(
      { workflowBundle: bundle, sinks: DROPPED_WORKFLOW_SPANS, replayName: name },
      history,
      workflowIdOf(history),
    ),
  ).resolves.toBeUndefined();
});

/**
 * The recorded session's workflow id, where replay needs it: the ids of the sub-agents it started
 * are derived from it (`<id>-task-<toolUseId>`). Other histories replay under any id.
 */
function workflowIdOf(history: {
  events: { startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId?: string } }[];
}): string | undefined {
  const child = history.events.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)
    ?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
  return child?.replace(/-task-[^-]+$/, '');
}

test.each(['before-hardening/recovery-every-branch.json', 'before-steering/v2-recovery-every-branch.json'])(
  '%s really went through every recovery branch',
  (name) => {
    const history = JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as {
      events: { activityTaskScheduledEventAttributes?: unknown; userMetadata?: { summary?: { data: string } } }[];
    };
    const summaries = history.events
      .filter((event) => event.activityTaskScheduledEventAttributes && event.userMetadata?.summary)
      .map((event) => JSON.parse(Buffer.from(event.userMetadata!.summary!.data, 'base64').toString('utf8')) as string);
    for (const expected of [
      '(max_output_tokens_escalate)',
      '(max_output_tokens_recovery)',
      '(model_fallback_retry)',
      'compact (auto)',
      'context collapse',
      '(collapse_drain_retry)',
      'compact (reactive)',
      '(reactive_compact_retry)',
    ]) {
      expect(summaries.some((summary) => summary.includes(expected))).toBe(true);
    }
  },
);

test('before-stop-hook-limit/mcp-tools.json really called MCP tools and listed them again after a server changed its list', () => {
  const history = JSON.parse(readFileSync(join(FIXTURES, 'before-stop-hook-limit', 'mcp-tools.json'), 'utf8')) as {
    events: { activityTaskScheduledEventAttributes?: { activityType: { name: string } } }[];
  };
  const types = history.events.flatMap((event) =>
    event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityType.name] : [],
  );
  expect(types.filter((type) => type === 'listMcpTools')).toHaveLength(2);
  expect(types.filter((type) => type === 'callMcpTool')).toHaveLength(6);
});

test('a session started with an inline prompt over the limit before the limit existed replays as it was recorded', async () => {
  // max-turns.json with a prompt over MAX_INLINE_PROMPT_BYTES: no 'inline-prompt-limit' marker, so no refusal on replay.
  const history = JSON.parse(readFileSync(join(FIXTURES, 'before-hardening', 'max-turns.json'), 'utf8')) as {
    events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { data: string }[] } } }[];
  };
  const payload = history.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!;
  const input = JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as { prompt: string };
  payload.data = Buffer.from(
    JSON.stringify({ ...input, prompt: `${input.prompt} ${'x'.repeat(MAX_INLINE_PROMPT_BYTES)}` }),
  ).toString('base64');
  await expect(
    Worker.runReplayHistory(
      { workflowBundle: bundle, sinks: DROPPED_WORKFLOW_SPANS, replayName: 'max-turns, long prompt' },
      history,
    ),
  ).resolves.toBeUndefined();
});
