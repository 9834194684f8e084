/**
 * The soak test: a long scripted session (hundreds of turns, a growing context, compactions on
 * the way, continue-as-new) while the worker is SIGKILLed at random moments and restarted. It
 * checks what users rely on — the session completes, the repository ends exactly as an uncrashed
 * run leaves it (every edit applied once, in order), no payload over 512 KB, every run's history
 * under 10 MB — and returns the figures.
 *
 * Used by `npm run soak` (the full version) and by test/integration/soak.test.ts (a short one).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { isCompaction, reply, text, toolUse, type FakeReply, type RecordedRequest } from './fake-anthropic';
import { Harness, makeRepo } from './harness';

export interface SoakOptions {
  turns: number;
  kills: number;
  /** Characters of model text per turn: what grows the context (tool results get microcompacted). */
  fillerChars: number;
  contextWindowTokens?: number;
  continueAsNewAfterTurns?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface SoakFigures {
  turns: number;
  kills: number;
  runs: number;
  compactions: number;
  modelRequests: number;
  maxContextTokens: number;
  maxEventBytes: number;
  maxRunHistoryBytes: number;
  seconds: number;
  repositoryMatches: boolean;
}

const STEP_ID = /toolu_soak_(\d+)/;
const NEXT_STEP = /NEXT_STEP=(\d+)/;

/** The step a request asks for: one past the newest soak tool result, or what a summary says. */
export function nextStep(request: RecordedRequest): number {
  for (let index = request.body.messages.length - 1; index >= 0; index--) {
    const message = request.body.messages[index]!;
    const serialized = JSON.stringify(message.content);
    if (message.role === 'user') {
      const ids = [...serialized.matchAll(new RegExp(STEP_ID.source, 'g'))].map((match) => Number(match[1]));
      if (ids.length) return Math.max(...ids) + 1;
      const summary = serialized.match(NEXT_STEP);
      if (summary) return Number(summary[1]);
    }
  }
  return 0;
}

/** A seeded generator (mulberry32), so a soak run can be repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

export function expectedLog(turns: number): string {
  return `<<START>>\n${Array.from({ length: turns }, (_, index) => `edit ${index + 1}\n`).join('')}<<END>>\n`;
}

export async function runSoak(options: SoakOptions): Promise<SoakFigures> {
  const log = options.log ?? (() => {});
  const next = random(options.seed ?? 20261129);
  const started = Date.now();
  const harness = await Harness.start();
  let compactions = 0;
  let maxContextTokens = 0;
  // Kill points: request numbers spread over the session, each followed by a short random delay
  // so the kill lands in a model call, a tool call or between them.
  const killAt = new Set<number>();
  while (killAt.size < options.kills) killAt.add(3 + Math.floor(next() * Math.max(1, options.turns - 3)));
  let requests = 0;
  let kills = 0;
  let worker: ChildProcess | undefined;
  let restarting: Promise<void> = Promise.resolve();

  const startWorker = async () => {
    worker = harness.spawnWorker();
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      worker!.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('durable-agent worker: task queue')) resolve();
      });
      worker!.once('exit', (code) => reject(new Error(`worker exited early (${code}): ${seen}`)));
    });
  };
  const killAndRestart = async () => {
    const victim = worker!;
    await new Promise<void>((resolve) => {
      victim.once('exit', () => resolve());
      victim.kill('SIGKILL');
    });
    kills++;
    log(`kill ${kills} at request ${requests}`);
    await startWorker();
  };

  const filler = (step: number) =>
    `Step ${step} notes. ${'The refactor proceeds file by file. '.repeat(Math.ceil(options.fillerChars / 36))}`.slice(
      0,
      options.fillerChars,
    );
  harness.fake.handler = (request): FakeReply => {
    requests++;
    maxContextTokens = Math.max(maxContextTokens, Math.ceil(JSON.stringify(request.body).length / 4));
    if (killAt.has(requests)) {
      killAt.delete(requests);
      const delay = Math.floor(next() * 400);
      restarting = restarting.then(() => new Promise((resolve) => setTimeout(resolve, delay))).then(killAndRestart);
    }
    const step = nextStep(request);
    if (isCompaction(request)) {
      compactions++;
      return reply([text(`<summary>Appending edit lines to log.txt one per step. NEXT_STEP=${step}</summary>`)]);
    }
    if (step > options.turns) return reply([text('SOAK DONE: every edit is in log.txt.')]);
    if (step === 0) return reply([text(filler(0)), toolUse('Read', { file_path: 'log.txt' }, 'toolu_soak_0')]);
    return reply([
      text(filler(step)),
      toolUse(
        'Edit',
        { file_path: 'log.txt', old_string: '<<END>>', new_string: `edit ${step}\n<<END>>` },
        `toolu_soak_${step}`,
      ),
    ]);
  };

  const workdir = makeRepo({ 'log.txt': '<<START>>\n<<END>>\n' });
  try {
    await startWorker();
    const handle = await harness.start({
      prompt: 'Append one edit line to log.txt per step until told to stop.',
      workdir,
      maxTurns: options.turns + 50,
      toolSummaries: false,
      ...(options.contextWindowTokens ? { contextWindowTokens: options.contextWindowTokens } : {}),
      ...(options.continueAsNewAfterTurns ? { continueAsNewAfterTurns: options.continueAsNewAfterTurns } : {}),
    });
    const result = await handle.result();
    await restarting;
    if (result.reason !== 'completed')
      throw new Error(`soak session ended with ${result.reason}: ${result.error ?? ''}`);

    // Walk the chain of runs: sizes of every run's history and of its largest event.
    let runs = 0;
    let maxEventBytes = 0;
    let maxRunHistoryBytes = 0;
    for (let runId: string | undefined = handle.firstExecutionRunId; runId;) {
      const run: WorkflowHandle = harness.client.workflow.getHandle(handle.workflowId, runId);
      const history: temporal.api.history.v1.IHistory = await run.fetchHistory();
      runs++;
      maxRunHistoryBytes = Math.max(maxRunHistoryBytes, Number((await run.describe()).historySize ?? 0));
      for (const event of history.events ?? []) {
        maxEventBytes = Math.max(maxEventBytes, temporal.api.history.v1.HistoryEvent.encode(event).finish().length);
      }
      runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    const repositoryMatches = readFileSync(join(workdir, 'log.txt'), 'utf8') === expectedLog(options.turns);
    return {
      turns: result.turnCount,
      kills,
      runs,
      compactions,
      modelRequests: requests,
      maxContextTokens,
      maxEventBytes,
      maxRunHistoryBytes,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      repositoryMatches,
    };
  } finally {
    await harness.stop();
  }
}

export function formatFigures(figures: SoakFigures): string {
  return (
    `soak: turns=${figures.turns} kills=${figures.kills} runs=${figures.runs} compactions=${figures.compactions} ` +
    `model_requests=${figures.modelRequests} max_context_tokens=${figures.maxContextTokens} ` +
    `max_event_bytes=${figures.maxEventBytes} max_run_history_bytes=${figures.maxRunHistoryBytes} ` +
    `repository_matches=${figures.repositoryMatches} seconds=${figures.seconds}`
  );
}
