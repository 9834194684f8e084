/**
 * Determinism guard: every recorded history (test/fixtures/histories, one per loop path) must
 * replay against the current workflow code. A change that would break running workflows fails
 * here; gate such a change with patched() and record the new path too (npm run record-histories).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';

jest.setTimeout(120_000);

const FIXTURES = join(__dirname, '..', 'fixtures', 'histories');
const files = readdirSync(FIXTURES).filter((name) => name.endsWith('.json'));

beforeAll(() => {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
});

test('there are recorded histories to replay', () => {
  expect(files.length).toBeGreaterThanOrEqual(5);
});

test.each(files)('%s replays without non-determinism', async (name) => {
  const history = JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
  await expect(
    Worker.runReplayHistory({ workflowsPath: require.resolve('../../src/workflows'), replayName: name }, history),
  ).resolves.toBeUndefined();
});

test.each(['recovery-every-branch.json', 'v2-recovery-every-branch.json'])('%s really went through every recovery branch', (name) => {
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
});
