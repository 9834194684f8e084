/**
 * Orchestration overhead per turn (model call + one Read, zero-latency fake model): the agent's
 * Temporal loop with its default settings (tool summaries on) and without summaries, Temporal's
 * own floor (a bare workflow with two no-op activities per turn) and a plain in-process loop of
 * the same activity code, measured in turn in one run.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import { resolveSandbox } from '../../src/sandbox/resolve-sandbox';
import { openStore } from '../../src/store/open-store';
import type { CallModelOutcome, PrepareSessionOutput, RunToolOutput } from '../../src/shared/activity-io';
import type { ConversationMessage } from '../../src/shared/conversation';
import { TOOL_NAMES } from '../../src/shared/tool-names';
import { type Harness, makeRepo } from '../../test/support/harness';
import { scratchDir } from '../../test/support/paths';
import { floorRunner } from './floor';
import { median, readEveryTurn, round, type Row, timeSession } from './support';

const TURNS = 30;
const REPETITIONS = 3;

export async function overhead(harness: Harness): Promise<Row[]> {
  const floor = await floorRunner(harness);
  const samples = {
    defaults: [] as number[],
    noSummaries: [] as number[],
    floor: [] as number[],
    plain: [] as number[],
  };
  try {
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      const workdir = makeRepo({ 'a.txt': 'a\n' });
      samples.defaults.push(
        (await timeSession(harness, readEveryTurn(TURNS), { prompt: 'read', workdir, toolSummaries: true })).ms / TURNS,
      );
      samples.noSummaries.push(
        (await timeSession(harness, readEveryTurn(TURNS), { prompt: 'read', workdir })).ms / TURNS,
      );
      samples.floor.push((await floor.run(TURNS)).msPerTurn);
      samples.plain.push(await plainLoop(harness, workdir, repetition));
    }
  } finally {
    await floor.stop();
  }
  const [defaults, noSummaries, floorTurn, plain] = [
    median(samples.defaults),
    median(samples.noSummaries),
    median(samples.floor),
    median(samples.plain),
  ];
  return [
    {
      figure:
        "Turn overhead (model call + one Read, zero-latency fake): the agent's loop with default settings, and without tool summaries, against Temporal's floor (a bare workflow with two no-op activities per turn) and a plain in-process loop",
      value:
        `${round(defaults)} ms per turn (×${round(defaults / floorTurn, 2)} the floor); without summaries ${round(noSummaries)} ms (×${round(noSummaries / floorTurn, 2)}); ` +
        `floor ${round(floorTurn)} ms; plain loop ${round(plain)} ms; medians of ${REPETITIONS} × ${TURNS} turns`,
      command: 'npm run bench -- --only overhead',
    },
  ];
}

/** The same activity code without Temporal: activities called in a loop, in this process. */
async function plainLoop(harness: Harness, workdir: string, repetition: number): Promise<number> {
  const store = await openStore({ kind: 'file', directory: scratchDir('bench-plain') });
  const activities = createActivities({
    ...harness.workerConfig(),
    store,
    sandbox: await resolveSandbox(harness.workerConfig().sandbox),
  });
  harness.fake.handler = readEveryTurn(TURNS);
  const environment = new MockActivityEnvironment();
  const started = performance.now();
  const session: PrepareSessionOutput = await environment.run(activities.prepareSession, {
    workdir,
    allowedTools: [...TOOL_NAMES],
    prompt: 'read',
    startedAt: new Date().toISOString(),
  });
  let conversationRef: string | null = null;
  let append: ConversationMessage[] = [{ role: 'user', kind: 'text', content: session.prompt }];
  for (;;) {
    const outcome: CallModelOutcome = await environment.run(activities.callModel, {
      model: session.model,
      maxOutputTokens: 8192,
      fallbackAfterOverloads: 3,
      systemRef: session.systemRef,
      allowedTools: [...TOOL_NAMES],
      workdir: session.workdir,
      conversationRef,
      append,
    });
    if (outcome.kind !== 'response' || outcome.toolUses.length === 0) break;
    conversationRef = outcome.conversationRef;
    const call = outcome.toolUses[0]!;
    const output: RunToolOutput = await environment.run(activities.runTool, {
      sessionId: `plain-${repetition}`,
      toolUseId: call.id,
      name: call.name,
      input: call.input,
      workdir: session.workdir,
      fileStates: [],
    });
    append = [
      { role: 'assistant', kind: 'assistant', ...outcome.assistant },
      { role: 'user', kind: 'tool_results', results: [output.result] },
    ];
  }
  return (performance.now() - started) / TURNS;
}
