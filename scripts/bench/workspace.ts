/**
 * Durable workspaces at the scale the issue sets its targets for: a repository of 10,000 small
 * files in 200 directories, plus a node_modules of 3,000 files that its .gitignore ignores.
 *
 * 1. The snapshot activity's own work (`takeSnapshot` on a LocalContentStore, no Temporal): a
 *    first full snapshot, then one after 10 files changed (target ≤ 200 ms).
 * 2. Real interactive sessions on the harness worker, 11 turns each changing 10 files with Bash:
 *    the Bash calls with the snapshot each takes when done (scheduled → completed), the history
 *    the snapshots add per turn (target ≤ 1 KB: the reference a call gets and the one it brings
 *    back; a turn's snapshot has no activity or workflow task of its own), and a rewind of 10
 *    turns, to turn 1, timed as the client waits for the `rewind` update (target ≤ 2 s).
 *
 * The repository's files are dated an hour back, as in a checkout made earlier: a file modified
 * within 2 s of a snapshot is read again by the next one (the racy-mtime guard), which would turn
 * every "incremental" snapshot of a just-written repository into a full read.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { LocalContentStore } from '../../src/store/content-store';
import { takeSnapshot } from '../../src/snapshots/snapshot';
import type { AgentState } from '../../src/shared/contract';
import { endSignal, rewindUpdate, stateQuery } from '../../src/workflows/definitions';
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import type { Harness } from '../../test/support/harness';
import { scratchDir } from '../../test/support/paths';
import { eventTime, type History, median, round, type Row } from './support';

const AREAS = 20;
const MODULES_PER_AREA = 10;
const MODULES = AREAS * MODULES_PER_AREA;
const FILES_PER_MODULE = 50;
const IGNORED_PACKAGES = 30;
const FILES_PER_IGNORED_PACKAGE = 100;
const FILES_CHANGED_PER_TURN = 10;
const SNAPSHOT_REPETITIONS = 7;
const SESSIONS = 3;
/** Turns of a session that change files; the rewind to turn 1 undoes the last 10 of them. */
const CHANGING_TURNS = 11;
const REWIND_TO_TURN = 1;

const pad = (index: number) => String(index).padStart(3, '0');
const moduleDirectory = (module: number) =>
  `src/area-${pad(Math.floor(module / MODULES_PER_AREA))}/module-${pad(module % MODULES_PER_AREA)}`;
const repositoryFile = (module: number, file: number) => `${moduleDirectory(module)}/file-${pad(file)}.txt`;
const originalContent = (module: number, file: number) =>
  `module ${module}, file ${file}\n${'some line of text in a small file\n'.repeat(4)}`;

/** Scratch directories of this run (some 100,000 files in all), removed at its end. */
const scratch: string[] = [];
function benchDirectory(prefix: string): string {
  scratch.push(scratchDir(prefix));
  return scratch[scratch.length - 1]!;
}

/** The 10,000-file repository (template: sessions and measurements work on copies). */
function buildRepository(): string {
  const root = benchDirectory('workspace-bench-repo');
  const anHourAgo = new Date(Date.now() - 3_600_000);
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n');
  for (let module = 0; module < MODULES; module++) {
    mkdirSync(join(root, moduleDirectory(module)), { recursive: true });
    for (let file = 0; file < FILES_PER_MODULE; file++) {
      const path = join(root, repositoryFile(module, file));
      writeFileSync(path, originalContent(module, file));
      utimesSync(path, anHourAgo, anHourAgo);
    }
  }
  for (let ignored = 0; ignored < IGNORED_PACKAGES; ignored++) {
    const directory = join(root, 'node_modules', `package-${pad(ignored)}`);
    mkdirSync(directory, { recursive: true });
    for (let file = 0; file < FILES_PER_IGNORED_PACKAGE; file++)
      writeFileSync(join(directory, `index-${pad(file)}.js`), `module.exports = ${file};\n`);
  }
  return root;
}

/** A copy of the repository with its files' dates kept. */
function copyOf(repository: string, prefix: string): string {
  const copy = benchDirectory(prefix);
  cpSync(repository, copy, { recursive: true, preserveTimestamps: true });
  return copy;
}

/** 1. `takeSnapshot` itself: a first full snapshot into an empty store, then one after 10 files of one module changed. */
async function snapshotWork(repository: string): Promise<{ full: number[]; incremental: number[]; files: number }> {
  const workdir = copyOf(repository, 'workspace-bench-direct');
  const timings = { full: [] as number[], incremental: [] as number[], files: 0 };
  for (let repetition = 0; repetition < SNAPSHOT_REPETITIONS; repetition++) {
    const store = new LocalContentStore(join(benchDirectory('workspace-bench-store'), 'objects'));
    let started = performance.now();
    const first = await takeSnapshot(store, workdir);
    timings.full.push(performance.now() - started);
    timings.files = first.files;
    for (let file = 0; file < FILES_CHANGED_PER_TURN; file++)
      appendFileSync(join(workdir, repositoryFile(repetition, file)), `change ${repetition}\n`);
    started = performance.now();
    const next = await takeSnapshot(store, workdir, first.ref);
    timings.incremental.push(performance.now() - started);
    if (next.changes.length !== FILES_CHANGED_PER_TURN)
      throw new Error(`expected ${FILES_CHANGED_PER_TURN} changes, the snapshot found ${next.changes.length}`);
  }
  return timings;
}

/** Turn `turn` (1-based) appends a line to the first 10 files of module `turn`. */
function changeTenFiles(turn: number): string {
  const files = Array.from({ length: FILES_CHANGED_PER_TURN }, (_, file) => repositoryFile(turn, file)).join(' ');
  return `for f in ${files}; do echo turn${turn} >> "$f"; done`;
}

type ActivityRun = { scheduled: number; completed: number; historyBytes: number; snapshotBytes: number };

/** JSON bytes that the snapshot fields (`snapshotRef` in, `snapshot` out) add to an activity's payload. */
function snapshotFieldBytes(
  payloads: temporal.api.common.v1.IPayload[] | null | undefined,
  field: 'snapshotRef' | 'snapshot',
): number {
  const data = payloads?.[0]?.data;
  if (!data) return 0;
  const value = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
  if (!(field in value)) return 0;
  const { [field]: _snapshot, ...without } = value;
  return JSON.stringify(value).length - JSON.stringify(without).length;
}

/** Each completed activity `name` of a history: its scheduled and completed times, and the bytes of its three events. */
function activityRuns(history: History, name: string): ActivityRun[] {
  const runs = new Map<string, ActivityRun>();
  const bytes = (event: temporal.api.history.v1.IHistoryEvent) =>
    temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
  for (const event of history.events ?? []) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === name) {
      const input = event.activityTaskScheduledEventAttributes.input?.payloads;
      runs.set(String(event.eventId), {
        scheduled: eventTime(event),
        completed: NaN,
        historyBytes: bytes(event),
        snapshotBytes: snapshotFieldBytes(input, 'snapshotRef'),
      });
    }
    const started = runs.get(String(event.activityTaskStartedEventAttributes?.scheduledEventId));
    if (started) started.historyBytes += bytes(event);
    const completed = runs.get(String(event.activityTaskCompletedEventAttributes?.scheduledEventId));
    if (completed) {
      completed.historyBytes += bytes(event);
      completed.snapshotBytes += snapshotFieldBytes(
        event.activityTaskCompletedEventAttributes?.result?.payloads,
        'snapshot',
      );
      completed.completed = eventTime(event);
    }
  }
  return [...runs.values()].filter((run) => !Number.isNaN(run.completed));
}

async function stateWhere(
  handle: Awaited<ReturnType<Harness['start']>>,
  predicate: (state: AgentState) => boolean,
): Promise<AgentState> {
  for (;;) {
    const state = await handle.query(stateQuery);
    if (predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface SessionMeasures {
  rewindMs: number;
  filesRestored: number;
  /** Scheduled → completed of the start snapshot (an activity of its own), and of the turns' Bash calls with their snapshots. */
  startSnapshotMs: number;
  startSnapshotHistoryBytes: number;
  bashWithSnapshotMs: number[];
  /** What the snapshot fields add to the Bash calls' history, in all, and the calls that took one. */
  snapshotFieldBytes: number;
  snapshots: number;
  checkMs: number;
  restoreMs: number;
}

/** 2. A session of 11 turns changing 10 files each, waiting for input, then rewound to turn 1. */
async function rewindSession(harness: Harness, repository: string): Promise<SessionMeasures> {
  const workdir = copyOf(repository, 'workspace-bench-session');
  const script = byTurn([
    ...Array.from({ length: CHANGING_TURNS }, (_, index) =>
      reply([toolUse('Bash', { command: changeTenFiles(index + 1) })]),
    ),
    reply([text('Changed the files.')]),
  ]);
  let rewound = false;
  // After the rewind the model answers again from turn 1's tool results: it ends the turn.
  harness.fake.handler = (request) => (rewound ? reply([text('Back at turn 1.')]) : script(request));
  const handle = await harness.start({
    prompt: 'Change ten files a turn',
    workdir,
    interactive: true,
    toolSummaries: false,
  });
  const before = await stateWhere(handle, (state) => state.status === 'waiting_input');
  if (before.snapshots.length !== CHANGING_TURNS + 1)
    throw new Error(`expected ${CHANGING_TURNS + 1} snapshots, the session took ${before.snapshots.length}`);

  rewound = true;
  const started = performance.now();
  const result = await handle.executeUpdate(rewindUpdate, { args: [{ turn: REWIND_TO_TURN }] });
  const rewindMs = performance.now() - started;
  const expectedRestored = (CHANGING_TURNS - REWIND_TO_TURN) * FILES_CHANGED_PER_TURN;
  if (result.filesRestored !== expectedRestored)
    throw new Error(`rewind restored ${result.filesRestored} files, expected ${expectedRestored}`);
  const read = (module: number, file: number) => readFileSync(join(workdir, repositoryFile(module, file)), 'utf8');
  for (const turn of [2, 6, CHANGING_TURNS]) {
    if (read(turn, 0) !== originalContent(turn, 0) || read(turn, 9) !== originalContent(turn, 9))
      throw new Error(`turn ${turn}'s files were not put back`);
  }
  if (read(1, 0) !== `${originalContent(1, 0)}turn1\n`) throw new Error("turn 1's change was undone");

  await stateWhere(handle, (state) => state.status === 'waiting_input' && state.transitions.includes('rewind'));
  await handle.signal(endSignal);
  await handle.result();
  const history = await handle.fetchHistory();
  const snapshotActivities = activityRuns(history, 'snapshotWorkspace');
  if (snapshotActivities.length !== 1)
    throw new Error(`expected one snapshot activity (the start), found ${snapshotActivities.length}`);
  const start = snapshotActivities[0]!;
  const bashCalls = activityRuns(history, 'runTool').filter((run) => run.snapshotBytes > 0);
  const duration = (run: ActivityRun | undefined) => (run ? run.completed - run.scheduled : NaN);
  return {
    rewindMs,
    filesRestored: result.filesRestored,
    startSnapshotMs: duration(start),
    startSnapshotHistoryBytes: start.historyBytes,
    bashWithSnapshotMs: bashCalls.map(duration),
    snapshotFieldBytes: bashCalls.reduce((sum, run) => sum + run.snapshotBytes, 0),
    snapshots: bashCalls.length,
    checkMs: duration(activityRuns(history, 'checkWorkspace')[0]),
    restoreMs: duration(activityRuns(history, 'restoreWorkspace')[0]),
  };
}

export async function workspace(harness: Harness): Promise<Row[]> {
  const sessions: SessionMeasures[] = [];
  let direct: Awaited<ReturnType<typeof snapshotWork>>;
  try {
    const repository = buildRepository();
    direct = await snapshotWork(repository);
    for (let session = 0; session < SESSIONS; session++) sessions.push(await rewindSession(harness, repository));
  } finally {
    for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
  }

  const ms = (value: number) => `${Math.round(value)} ms`;
  const list = (values: number[]) => values.map((value) => Math.round(value)).join(', ');
  const incremental = median(direct.incremental);
  const bashCalls = sessions.flatMap((session) => session.bashWithSnapshotMs);
  const snapshots = sessions.reduce((sum, session) => sum + session.snapshots, 0);
  const bytesPerSnapshot = sessions.reduce((sum, session) => sum + session.snapshotFieldBytes, 0) / snapshots;
  const startBytes = median(sessions.map((session) => session.startSnapshotHistoryBytes));
  const rewind = median(sessions.map((session) => session.rewindMs));
  const repositoryText = `${direct.files.toLocaleString('en-US')} files in ${MODULES} directories, plus ${(IGNORED_PACKAGES * FILES_PER_IGNORED_PACKAGE).toLocaleString('en-US')} ignored in node_modules`;
  const command = 'npm run bench -- --only workspace';
  return [
    {
      figure: `Workspace snapshot after a turn that changed ${FILES_CHANGED_PER_TURN} files, ${repositoryText} (\`takeSnapshot\`, local content store)`,
      value:
        `${ms(incremental)} median (${SNAPSHOT_REPETITIONS} runs: ${list(direct.incremental)}) — target ≤ 200 ms ${incremental <= 200 ? 'met' : 'MISSED'}; ` +
        `first full snapshot of the same repository: ${ms(median(direct.full))} median (${list(direct.full)})`,
      command,
    },
    {
      figure: `A turn's Bash call changing ${FILES_CHANGED_PER_TURN} files in the same repository, with the snapshot it takes when done (\`runTool\` scheduled → completed in history)`,
      value:
        `${ms(median(bashCalls))} median of ${bashCalls.length} (${SESSIONS} sessions × ${CHANGING_TURNS} turns); ` +
        `the session's start snapshot (full, an activity of its own): ${ms(median(sessions.map((session) => session.startSnapshotMs)))} median (${list(sessions.map((session) => session.startSnapshotMs))}; ` +
        'the worker keeps one store, so after the first session the content is already there and only hashed)',
      command,
    },
    {
      figure:
        "History added by workspace snapshots per turn (the `snapshotRef` a call gets and the `snapshot` it returns, in its activity's payloads; no activity or workflow task of their own)",
      value:
        `${Math.round(bytesPerSnapshot)} B per turn (${snapshots} snapshots in ${SESSIONS} sessions) — target ≤ 1 KB ${bytesPerSnapshot <= 1024 ? 'met' : 'MISSED'}; ` +
        `plus once per session the start snapshot's activity: ${Math.round(startBytes)} B`,
      command,
    },
    {
      figure: `Rewind of ${CHANGING_TURNS - REWIND_TO_TURN} turns (${FILES_CHANGED_PER_TURN} files each) in the same repository, an interactive session waiting for input (client wall time of update \`rewind\`)`,
      value:
        `${round(rewind / 1000, 2)} s median (${SESSIONS} sessions: ${list(sessions.map((session) => session.rewindMs))} ms) — target ≤ 2 s ${rewind <= 2000 ? 'met' : 'MISSED'}; ` +
        `filesRestored ${sessions[0]!.filesRestored}; of which check activity ${ms(median(sessions.map((session) => session.checkMs)))}, ` +
        `restore activity ${ms(median(sessions.map((session) => session.restoreMs)))} (medians, scheduled → completed)`,
      command,
    },
  ];
}
