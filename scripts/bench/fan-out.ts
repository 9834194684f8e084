/**
 * Issue 27's fan-out: a 300-file rename split over 6 writing sub-agents (`isolation: "worktree"`)
 * against the same six parts done by one agent one after another, with the same fake model
 * answering every call after a fixed latency. Each part is the same scripted work: turns of one
 * Bash call that renames in the part's next few files, then a final answer. Measured for two
 * sizes of a turn (5 files, 10 turns a part; 2 files, 25 turns a part, nearer to a model editing
 * a file or two a response): wall time, model calls, history size (the parent's, and its
 * children's together), the ceiling (the serial run's model calls over those one after another
 * in the fan-out: what a machine with no other cost would give), and that both runs leave
 * exactly the same files, every `fetchUser` renamed.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type FakeReply,
  type RecordedRequest,
  reply,
  taskOf,
  text,
  toolUse,
  turnOf,
} from '../../test/support/fake-anthropic';
import { type Harness, makeRepo } from '../../test/support/harness';
import { round, type Row } from './support';

const PARTS = 6;
const FILES_PER_PART = 50;
const LATENCY_MS = 1_000;
/** Files renamed by one Bash call, one row each. */
const TURN_SIZES = [5, 2];

function repository(): string {
  const files: Record<string, string> = {};
  for (let part = 0; part < PARTS; part++)
    for (let index = 0; index < FILES_PER_PART; index++)
      files[`packages/p${part}/file${index}.ts`] =
        `import { fetchUser } from '../../api';\nexport const user${index} = await fetchUser(${index});\n`;
  files['api.ts'] = 'export async function loadUser(id: number) {\n  return { id };\n}\n';
  return makeRepo(files);
}

/** The Bash call of turn `turn` of part `part`: the rename in its next `filesPerTurn` files. */
function renameCall(part: number, turn: number, filesPerTurn: number) {
  const files = Array.from({ length: filesPerTurn }, (_, n) => `packages/p${part}/file${turn * filesPerTurn + n}.ts`);
  return toolUse('Bash', { command: `sed -i 's/fetchUser/loadUser/g' ${files.join(' ')}` });
}

const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), LATENCY_MS));
type Handler = (request: RecordedRequest) => Promise<FakeReply>;

/** Six writing sub-agents, one per package, each doing its part. */
function fanOutHandler(filesPerTurn: number): Handler {
  const turnsPerPart = FILES_PER_PART / filesPerTurn;
  return (request) => {
    const part = /Rename in package p(\d)/.exec(taskOf(request))?.[1];
    const turn = turnOf(request);
    if (part === undefined)
      return later(
        turn === 0
          ? reply(
              Array.from({ length: PARTS }, (_, n) =>
                toolUse('Agent', { description: `p${n}`, prompt: `Rename in package p${n}`, isolation: 'worktree' }),
              ),
            )
          : reply([text('All packages renamed.')]),
      );
    return later(
      turn < turnsPerPart ? reply([renameCall(Number(part), turn, filesPerTurn)]) : reply([text(`p${part} renamed`)]),
    );
  };
}

/** One agent doing the six parts one after another: the same calls, in one conversation. */
function serialHandler(filesPerTurn: number): Handler {
  const turnsPerPart = FILES_PER_PART / filesPerTurn;
  return (request) => {
    const turn = turnOf(request);
    if (turn >= PARTS * turnsPerPart) return later(reply([text('All packages renamed.')]));
    return later(reply([renameCall(Math.floor(turn / turnsPerPart), turn % turnsPerPart, filesPerTurn)]));
  };
}

interface Run {
  ms: number;
  modelCalls: number;
  parentEvents: number;
  allEvents: number;
  filesHash: string;
  renamedEverywhere: boolean;
}

async function runOnce(harness: Harness, handler: Handler, prompt: string) {
  const workdir = repository();
  harness.fake.handler = handler;
  const before = harness.fake.requests.length;
  const started = performance.now();
  const handle = await harness.start({ prompt, workdir, toolSummaries: false, maxParallelAgents: PARTS });
  const result = await handle.result();
  const ms = performance.now() - started;
  if (result.reason !== 'completed') throw new Error(`${prompt}: ${result.reason} ${result.error ?? ''}`);
  const parentEvents = (await handle.fetchHistory()).events?.length ?? 0;
  let childEvents = 0;
  for await (const child of harness.client.workflow.list({ query: `ParentWorkflowId='${handle.workflowId}'` }))
    childEvents += (await harness.client.workflow.getHandle(child.workflowId).fetchHistory()).events?.length ?? 0;
  const files = readdirSync(join(workdir, 'packages'), { recursive: true })
    .map(String)
    .filter((path) => path.endsWith('.ts'))
    .sort();
  const hash = createHash('sha256');
  let renamedEverywhere = files.length === PARTS * FILES_PER_PART;
  for (const path of files) {
    const content = readFileSync(join(workdir, 'packages', path), 'utf8');
    if (content.includes('fetchUser') || !content.includes('loadUser')) renamedEverywhere = false;
    hash.update(path).update(content);
  }
  return {
    ms,
    modelCalls: harness.fake.requests.length - before,
    parentEvents,
    allEvents: parentEvents + childEvents,
    filesHash: hash.digest('hex'),
    renamedEverywhere,
  } satisfies Run;
}

export async function fanOut(harness: Harness): Promise<Row[]> {
  const rows: Row[] = [];
  for (const filesPerTurn of TURN_SIZES) rows.push(await fanOutRow(harness, filesPerTurn));
  return rows;
}

async function fanOutRow(harness: Harness, filesPerTurn: number): Promise<Row> {
  const turnsPerPart = FILES_PER_PART / filesPerTurn;
  const serial = await runOnce(
    harness,
    serialHandler(filesPerTurn),
    'Rename fetchUser to loadUser, package by package',
  );
  const parallel = await runOnce(
    harness,
    fanOutHandler(filesPerTurn),
    'Rename fetchUser to loadUser, one writing agent a package',
  );
  const same = serial.filesHash === parallel.filesHash && serial.renamedEverywhere && parallel.renamedEverywhere;
  // The fan-out's model calls one after another: the parent's two, and one child's turns and answer.
  const ceiling = serial.modelCalls / (2 + turnsPerPart + 1);
  return {
    figure: `A ${PARTS * FILES_PER_PART}-file rename, ${filesPerTurn} files a turn (${turnsPerPart} turns a part): ${PARTS} writing sub-agents (isolation worktree, merged back) vs one agent doing the ${PARTS} parts one after another; fake model at ${LATENCY_MS / 1000} s a call`,
    value:
      `${(parallel.ms / 1000).toFixed(1)} s vs ${(serial.ms / 1000).toFixed(1)} s: ×${round(serial.ms / parallel.ms)} faster (ceiling ×${round(ceiling)}); ` +
      `model calls ${parallel.modelCalls} vs ${serial.modelCalls}; history events ${parallel.parentEvents} (parent) + ${parallel.allEvents - parallel.parentEvents} (children) vs ${serial.allEvents}; ` +
      `result ${same ? 'identical (every file renamed, same bytes)' : 'DIFFERENT'}`,
    command: 'npm run bench -- --only fan-out',
  };
}
