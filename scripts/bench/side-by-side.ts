/**
 * Side by side with Claude Code (issue 26, point 8): the same scripted tasks through durable-agent
 * (a real dev server, `npm run worker` in its own process) and through Claude Code's headless CLI
 * (`claude -p`, claude-code.ts), each against its own fake API speaking the same script
 * (side-by-side-fake.ts: Read, Edit and Bash only, which both offer), in one run:
 *
 * - turns: median time per model round trip (a 16-turn session of Reads, zero-latency fake), and the
 *   tokens each request sends as system prompt and tool definitions;
 * - rate-limit: every request refused with 429 (`retry-after: 2`, `anthropic-ratelimit-input-tokens-reset`)
 *   for a window (`--window`, seconds, default 75) from the second model request on; both at once;
 * - kill: SIGKILL during a slow Bash (`sleep 5`); durable-agent: the worker, and a new one started;
 *   Claude Code: the process, then `claude --continue -p …` in the same directory and HOME;
 * - overflow: a fake whose window is 8,000 tokens above the agent's own first request, answering the
 *   real 400 `prompt is too long: N tokens > M maximum`, and six Reads of 12,000 characters.
 *
 *   npm run bench -- --only side-by-side
 *   npm run bench -- --only side-by-side --rows rate-limit --window 20
 *
 * It never fails on what an agent does (that is the figure): only a missing binary or dev server stops it.
 */
import { type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { AgentResult } from '../../src/shared/contract';
import { FakeAnthropicServer } from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { claudeHome, claudeVersion, describeClaude, startClaude, stopGroup } from './claude-code';
import { type ScriptLog, type ScriptOptions, type ScriptStep, scriptedModel } from './side-by-side-fake';
import { median, round, type Row, waitForWorker } from './support';
import { buildIfStale } from './turns';

export const SIDE_BY_SIDE_ROWS = ['turns', 'rate-limit', 'kill', 'overflow'] as const;
type RowName = (typeof SIDE_BY_SIDE_ROWS)[number];

export interface SideBySideOptions {
  rows?: string[];
  /** The rate limit's window in seconds (75 by default; shorter for a quick run). */
  windowS?: number;
}

/** A task: its repository, its prompt, and the script's steps in it. */
interface Task {
  prompt: string;
  files: Record<string, string>;
  steps: (repo: string) => ScriptStep[];
}

interface Outcome {
  completed: boolean;
  ending: string;
  ms: number;
  log: ScriptLog;
  repo: string;
  /** A killed run: from the kill to the end. */
  afterKillMs?: number;
}

interface Agent {
  name: string;
  run(task: Task, script: ScriptOptions, options: { kill?: boolean; timeoutMs: number }): Promise<Outcome>;
}

const STARTS = '.bench-starts';
const TURN_REPEATS = 5;
const SLOW_COMMAND = `echo start >> ${STARTS}; sleep 5; echo bench-ok`;
const COMMAND = 'reproduce: npm run bench -- --only side-by-side';

const editTask = (command: string): Task => ({
  prompt: 'In a.txt, rename oldName to newName, then run the check command.',
  files: { 'a.txt': 'const oldName = 1;\nexport default oldName;\n' },
  steps: (repo) => [
    { name: 'Read', input: { file_path: join(repo, 'a.txt') } },
    {
      name: 'Edit',
      input: { file_path: join(repo, 'a.txt'), old_string: 'oldName', new_string: 'newName', replace_all: true },
    },
    { name: 'Bash', input: { command, description: 'Run the check' }, expect: 'bench-ok' },
  ],
});

const readTask = (reads: number, chars: number): Task => ({
  prompt: `Read the files f0.txt to f${reads - 1}.txt one by one.`,
  files: Object.fromEntries(
    Array.from({ length: reads }, (_, index) => [
      `f${index}.txt`,
      `${`line ${index} `.padEnd(119, 'x')}\n`.repeat(chars / 120),
    ]),
  ),
  steps: (repo) =>
    Array.from({ length: reads }, (_, index) => ({ name: 'Read', input: { file_path: join(repo, `f${index}.txt`) } })),
});

export async function sideBySide(harness: Harness, options: SideBySideOptions = {}): Promise<Row[]> {
  const selected = (options.rows ?? [...SIDE_BY_SIDE_ROWS]) as RowName[];
  const unknown = selected.filter((row) => !SIDE_BY_SIDE_ROWS.includes(row));
  if (unknown.length)
    throw new Error(`unknown side-by-side row(s): ${unknown.join(', ')} (known: ${SIDE_BY_SIDE_ROWS.join(', ')})`);
  const version = claudeVersion();
  if (!version)
    return [
      { figure: 'Side by side with Claude Code', value: `not measured: ${'no claude binary'}`, command: COMMAND },
    ];
  buildIfStale();
  const claudeFake = await FakeAnthropicServer.start();
  const durable = new DurableAgent(harness);
  await durable.start();
  const claude = claudeAgent(claudeFake);
  const rows: Row[] = [];
  try {
    for (const row of selected) {
      const measured = await ROWS[row]([durable, claude], { windowS: options.windowS ?? 75, version });
      for (const one of measured) console.log(`${one.figure}: ${one.value}`);
      rows.push(...measured);
    }
  } finally {
    durable.stop();
    await claudeFake.close();
  }
  return rows;
}

type RowRunner = (agents: [Agent, Agent], context: { windowS: number; version: string }) => Promise<Row[]>;

const ROWS: Record<RowName, RowRunner> = {
  async turns(agents, { version }) {
    // One after the other, interleaved: their timings are not to share two cores.
    const runs: Outcome[][] = agents.map(() => []);
    for (let repeat = 0; repeat < TURN_REPEATS; repeat++)
      for (const [index, agent] of agents.entries())
        runs[index]!.push(await agent.run(readTask(15, 1200), {}, { timeoutMs: 180_000 }));
    const turn = (outcomes: Outcome[]) => {
      const medians = outcomes.map((outcome) => median(gaps(outcome.log.mainAt)));
      const failed = outcomes.find((outcome) => !outcome.completed);
      return `${round(median(medians))} ms (median of ${medians.length} sessions: ${medians.map((value) => round(value)).join(', ')}; load average ${round(loadavg()[0]!)})${failed ? `; not completed: ${failed.ending}` : ''}`;
    };
    const tokens = ([outcome]: Outcome[]) => {
      const first = outcome!.log.sizes[0];
      if (!first) return `no request (${outcome!.ending})`;
      const perRequest = median(outcome!.log.sizes.map((size) => size.inputTokens));
      return (
        `system ${Math.round(first.systemChars / 4)} + tools ${Math.round(first.toolsChars / 4)} tokens a request ` +
        `(first request ${outcome!.log.firstTokens} in all, median ${perRequest}); ${kinds(outcome!.log)}`
      );
    };
    return [
      pair(
        `Time per turn: median ms from one model request to the next (a 16-turn session, one Read of a 1,200-character file a turn, zero-latency fake; ${TURN_REPEATS} sessions each, interleaved)`,
        agents,
        runs.map(turn),
        version,
      ),
      pair(
        "Tokens sent per request as system prompt and tool definitions (characters / 4, the fake's estimate; Claude Code's `system`-role messages counted as system), and the requests of that session by kind",
        agents,
        runs.map(tokens),
        version,
      ),
    ];
  },
  async 'rate-limit'(agents, { windowS, version }) {
    const script: ScriptOptions = { rateLimit: { windowMs: windowS * 1000, fromMain: 1 } };
    const timeoutMs = windowS * 1000 + 180_000;
    const outcomes = await Promise.all(
      agents.map((agent) => agent.run(editTask('echo bench-ok'), script, { timeoutMs })),
    );
    const describe = (outcome: Outcome) =>
      `${outcome.completed ? 'completed' : 'not completed'} (${outcome.ending}) after ${round(outcome.ms / 1000)} s; ${outcome.log.rateLimited} requests refused (at ${outcome.log.refusedAt.map((ms) => round(ms / 1000)).join(', ')} s)${
        outcome.log.resumedAfterWindowMs === undefined
          ? ''
          : `, the first request after the window ${round(outcome.log.resumedAfterWindowMs / 1000)} s after its end`
      }`;
    return [
      pair(
        `Rate limit: every request refused for ${windowS} s (429 rate_limit_error, retry-after 2, anthropic-ratelimit-input-tokens-reset) from the second model request of a Read/Edit/Bash task`,
        agents,
        outcomes.map(describe),
        version,
      ),
    ];
  },
  async kill(agents, { version }) {
    const outcomes: Outcome[] = [];
    for (const agent of agents)
      outcomes.push(await agent.run(editTask(SLOW_COMMAND), {}, { kill: true, timeoutMs: 180_000 }));
    const describe = (outcome: Outcome) => {
      const starts = existsSync(join(outcome.repo, STARTS))
        ? readFileSync(join(outcome.repo, STARTS), 'utf8').split('\n').length - 1
        : 0;
      const askedAgain = outcome.log.asked.reduce((sum, count) => sum + Math.max(0, count - 1), 0);
      const edited = readFileSync(join(outcome.repo, 'a.txt'), 'utf8').includes('newName');
      return (
        `${outcome.completed ? 'completed' : 'not completed'} (${outcome.ending}), ${round((outcome.afterKillMs ?? 0) / 1000, 2)} s from the kill to the end; ` +
        `the command started ${starts} times, ${askedAgain} tool calls asked for again; a.txt ${edited ? 'renamed' : 'not renamed'}; ` +
        `the killed call's result: ${outcome.log.errors.map((error) => JSON.stringify(error.slice(0, 160))).join(', ') || 'none'}`
      );
    };
    return [
      pair(
        'Kill mid-tool: SIGKILL during `sleep 5` in Bash (durable-agent: the worker, a new one started at once; Claude Code: the process, then `claude --continue -p`)',
        agents,
        outcomes.map(describe),
        version,
      ),
    ];
  },
  async overflow(agents, { version }) {
    const outcomes: Outcome[] = [];
    for (const agent of agents)
      outcomes.push(await agent.run(readTask(6, 12_000), { windowAboveFirst: 8_000 }, { timeoutMs: 180_000 }));
    for (const [index, outcome] of outcomes.entries())
      console.log(`${agents[index]!.name} overflow requests: ${outcome.log.sequence.slice(0, 60).join(' ')}`);
    const describe = (outcome: Outcome) =>
      `${outcome.completed ? 'completed' : 'not completed'} (${outcome.ending}); ${outcome.log.tooLong} requests refused as too long, ` +
      `${outcome.log.kinds.compaction} compaction requests answered, ${outcome.log.asked.reduce((sum, count) => sum + count, 0)} Reads asked for (6 in the script)`;
    return [
      pair(
        "Context overflow: six Reads of 12,000 characters against a window 8,000 tokens above the agent's own first request (the real 400 `prompt is too long: N tokens > M maximum`)",
        agents,
        outcomes.map(describe),
        version,
      ),
    ];
  },
};

function pair(figure: string, agents: Agent[], values: string[], version: string): Row {
  const name = (agent: Agent) => (agent.name === 'Claude Code' ? `Claude Code ${version.split(' ')[0]}` : agent.name);
  return {
    figure,
    // A cell of BENCHMARKS.md's table: no bare `|`.
    value: values.map((value, index) => `${name(agents[index]!)}: ${value.replaceAll('|', '\\|')}`).join(' · '),
    command: 'npm run bench -- --only side-by-side',
  };
}

const gaps = (starts: number[]) => starts.slice(1).map((at, index) => at - starts[index]!);

const kinds = (log: ScriptLog) =>
  `${log.kinds.main} main, ${log.kinds.side} side, ${log.kinds.compaction} compaction requests (${Object.entries(
    log.models,
  )
    .map(([model, count]) => `${model} ×${count}`)
    .join(', ')})`;

/** durable-agent as users run it: `npm run worker` in its own process (restarted after a kill). */
class DurableAgent implements Agent {
  readonly name = 'durable-agent';
  private worker: ChildProcess | undefined;

  constructor(private readonly harness: Harness) {}

  async start(): Promise<void> {
    this.worker = this.harness.spawnWorker();
    await waitForWorker(this.worker);
  }

  stop(): void {
    this.worker?.kill('SIGTERM');
  }

  async run(task: Task, script: ScriptOptions, options: { kill?: boolean; timeoutMs: number }): Promise<Outcome> {
    const repo = makeRepo(task.files);
    const { handler, log } = scriptedModel(task.steps(repo), script);
    this.harness.fake.handler = handler;
    // The fake answers durable-agent's tool-batch summaries itself, outside the script: counted as side requests.
    const summariesBefore = this.harness.fake.summaryRequests.length;
    const started = performance.now();
    const handle = await this.harness.start({ prompt: task.prompt, workdir: repo });
    let killedAt: number | undefined;
    if (options.kill && (await waitForFile(join(repo, STARTS), options.timeoutMs))) {
      this.worker!.kill('SIGKILL');
      killedAt = performance.now();
      await this.start();
    }
    const result = await withTimeout(handle.result() as Promise<AgentResult>, options.timeoutMs);
    if (!result) await handle.terminate('side-by-side benchmark: timed out').catch(() => {});
    const ending = result
      ? `${result.reason}${result.error ? `: ${result.error.slice(0, 120)}` : ''}`
      : `timed out after ${options.timeoutMs / 1000} s`;
    const ended = performance.now();
    log.kinds.side += this.harness.fake.summaryRequests.length - summariesBefore;
    return {
      completed: result?.reason === 'completed' && log.finished,
      ending,
      ms: ended - started,
      log,
      repo,
      afterKillMs: killedAt === undefined ? undefined : ended - killedAt,
    };
  }
}

/** Claude Code's CLI, each task in a fresh directory and HOME; after a kill, `claude --continue -p`. */
function claudeAgent(fake: FakeAnthropicServer): Agent {
  return {
    name: 'Claude Code',
    async run(task, script, options) {
      const repo = makeRepo(task.files);
      const home = claudeHome();
      const { handler, log } = scriptedModel(task.steps(repo), script);
      fake.handler = handler;
      const started = performance.now();
      const first = startClaude({ baseUrl: fake.url, cwd: repo, home, prompt: task.prompt });
      let run = first;
      let killedAt: number | undefined;
      if (options.kill && (await waitForFile(join(repo, STARTS), options.timeoutMs))) {
        first.child.kill('SIGKILL');
        killedAt = performance.now();
        await first.outcome;
        run = startClaude({ baseUrl: fake.url, cwd: repo, home, prompt: 'Go on with the task.', continue: true });
      }
      const outcome = await withTimeout(run.outcome, options.timeoutMs);
      stopGroup(first.child);
      stopGroup(run.child);
      rmSync(home, { recursive: true, force: true });
      const ended = performance.now();
      return {
        completed: !!outcome?.result && !outcome.result.is_error && log.finished,
        ending: outcome ? describeClaude(outcome) : `timed out after ${options.timeoutMs / 1000} s`,
        ms: ended - started,
        log,
        repo,
        afterKillMs: killedAt === undefined ? undefined : ended - killedAt,
      };
    },
  };
}

/** Whether the file appeared within `timeoutMs` (a run that never got there is not killed: its outcome says why). */
async function waitForFile(path: string, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!existsSync(path)) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** The promise's value, or undefined once `ms` passed. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
