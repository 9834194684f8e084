/**
 * What isolation costs the calls users make most, measured side by side with another checkout
 * in one run (`AGENT_BENCH_AGAINST=<dir>`: e.g. a worktree of the commit before, with its own
 * `npm ci`), rounds interleaved so both trees see the same machine:
 *
 * - a Bash call (`true` through the Bash tool) in the tree's default sandbox and unconfined;
 * - a Read of a 200-line file four directories down, and an Edit of it (its journal record and
 *   atomic replace), per call;
 * - an incremental snapshot of a 10,001-file repository after 10 files changed.
 *
 * Each tree's own modules are loaded from its own directory, so its code is what runs.
 */
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../test/support/paths';
import { median, round, type Row } from './support';

const BASH_CALLS = 40;
const READ_CALLS = 400;
const EDIT_CALLS = 150;
const SNAPSHOTS = 7;
const ROUNDS = 3;

interface Measured {
  bashSandboxed: number[];
  bashUnconfined: number[];
  read: number[];
  edit: number[];
  snapshot: number[];
}

/** One tree's code, and what each measurement needs of it. */
async function load(root: string) {
  const from = (path: string) => require(join(root, path));
  // Trees from before the infrastructure left src/activities/ keep it there.
  const either = (path: string, before: string) => from(existsSync(join(root, `${path}.ts`)) ? path : before);
  const { bashTool } = from('src/activities/tools/bash');
  const { readTool } = from('src/activities/tools/read');
  const { editTool } = from('src/activities/tools/edit');
  const { sha256 } = from('src/activities/tools/paths');
  const { toolContext } = from('test/support/tool-context');
  const { unconfined } = either('src/sandbox/command-sandbox', 'src/activities/sandbox/command-sandbox');
  const { sandboxSettings } = from('src/worker-config');
  const { LocalContentStore } = either('src/store/content-store', 'src/activities/store/content-store');
  const { takeSnapshot } = either('src/snapshots/snapshot', 'src/activities/workspace/snapshot');
  // The sandbox a worker of that tree would use (resolved where that tree resolves it).
  const resolver = existsSync(join(root, 'src/sandbox/resolve-sandbox.ts'))
    ? from('src/sandbox/resolve-sandbox')
    : existsSync(join(root, 'src/activities/sandbox/resolve-sandbox.ts'))
      ? from('src/activities/sandbox/resolve-sandbox')
      : from('src/activities/sandbox/command-sandbox');
  const sandboxed = await resolver.resolveSandbox({ ...sandboxSettings({}), mode: 'bwrap' });
  return { bashTool, readTool, editTool, sha256, toolContext, unconfined, sandboxed, LocalContentStore, takeSnapshot };
}

type Tree = Awaited<ReturnType<typeof load>> & {
  root: string;
  workdir: string;
  repository: string;
  store: unknown;
  snapshotRef?: string;
  measured: Measured;
};

async function timed(into: number[], run: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await run();
  into.push(performance.now() - started);
}

async function round1(tree: Tree, roundIndex: number): Promise<void> {
  const bash = (sandbox: unknown) =>
    tree.bashTool.execute({ command: 'true' }, tree.toolContext(tree.workdir, { sandbox }));
  for (let call = 0; call < BASH_CALLS; call++) {
    await timed(tree.measured.bashSandboxed, () => bash(tree.sandboxed));
    await timed(tree.measured.bashUnconfined, () => bash(tree.unconfined()));
  }
  const file = join(tree.workdir, 'src/a/b/c/file.ts');
  const context = tree.toolContext(tree.workdir);
  for (let call = 0; call < READ_CALLS; call++)
    await timed(tree.measured.read, () => tree.readTool.execute({ file_path: 'src/a/b/c/file.ts' }, context));
  for (let call = 0; call < EDIT_CALLS; call++) {
    const current = readFileSync(file, 'utf8');
    const [from, to] = current.startsWith('MARK_A') ? ['MARK_A', 'MARK_B'] : ['MARK_B', 'MARK_A'];
    const editing = tree.toolContext(tree.workdir, {
      knownFiles: new Map([[file, tree.sha256(current)]]),
      journal: context.journal,
    });
    await timed(tree.measured.edit, () =>
      tree.editTool.execute({ file_path: 'src/a/b/c/file.ts', old_string: from, new_string: to }, editing),
    );
  }
  for (let repetition = 0; repetition < SNAPSHOTS; repetition++) {
    for (let index = 0; index < 10; index++)
      appendFileSync(
        join(tree.repository, `src/area-${String(index).padStart(3, '0')}/module-000/file-00${roundIndex}.txt`),
        `change ${roundIndex} ${repetition}\n`,
      );
    await timed(tree.measured.snapshot, async () => {
      tree.snapshotRef = (await tree.takeSnapshot(tree.store, tree.repository, tree.snapshotRef)).ref;
    });
  }
}

/** The 10,001-file repository of the workspace benchmark (200 directories, node_modules ignored), dated an hour back. */
function repositoryTemplate(): string {
  const root = mkdtempSync(join(tmpdir(), 'isolation-bench-repo-'));
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n');
  for (let area = 0; area < 20; area++) {
    for (let module = 0; module < 10; module++) {
      const directory = join(
        root,
        `src/area-${String(area).padStart(3, '0')}/module-${String(module).padStart(3, '0')}`,
      );
      mkdirSync(directory, { recursive: true });
      for (let file = 0; file < 50; file++)
        writeFileSync(
          join(directory, `file-${String(file).padStart(3, '0')}.txt`),
          `module ${module}, file ${file}\n${'a line of text\n'.repeat(4)}`,
        );
    }
  }
  for (let pkg = 0; pkg < 30; pkg++) {
    mkdirSync(join(root, `node_modules/p${pkg}`), { recursive: true });
    for (let file = 0; file < 100; file++) writeFileSync(join(root, `node_modules/p${pkg}/f${file}.js`), 'x\n');
  }
  const anHourAgo = new Date(Date.now() - 3_600_000);
  const age = (path: string) => utimesSync(path, anHourAgo, anHourAgo);
  for (let area = 0; area < 20; area++)
    for (let module = 0; module < 10; module++)
      for (let file = 0; file < 50; file++)
        age(
          join(
            root,
            `src/area-${String(area).padStart(3, '0')}/module-${String(module).padStart(3, '0')}/file-${String(file).padStart(3, '0')}.txt`,
          ),
        );
  return root;
}

async function tree(root: string, template: string): Promise<Tree> {
  const loaded = await load(root);
  const workdir = mkdtempSync(join(tmpdir(), 'isolation-bench-workdir-'));
  mkdirSync(join(workdir, 'src/a/b/c'), { recursive: true });
  writeFileSync(join(workdir, 'src/a/b/c/file.ts'), `MARK_A\n${'export const x = 1;\n'.repeat(200)}`);
  const repository = mkdtempSync(join(tmpdir(), 'isolation-bench-copy-'));
  cpSync(template, repository, { recursive: true, preserveTimestamps: true });
  const store = new loaded.LocalContentStore(mkdtempSync(join(tmpdir(), 'isolation-bench-store-')));
  const ready: Tree = {
    ...loaded,
    root,
    workdir,
    repository,
    store,
    measured: { bashSandboxed: [], bashUnconfined: [], read: [], edit: [], snapshot: [] },
  };
  // The first, full snapshot: the incremental ones after it are what a turn costs.
  ready.snapshotRef = (await loaded.takeSnapshot(store, repository)).ref;
  return ready;
}

export async function isolation(): Promise<Row[]> {
  const template = repositoryTemplate();
  const against = process.env.AGENT_BENCH_AGAINST;
  const trees = [await tree(PROJECT_ROOT, template), ...(against ? [await tree(against, template)] : [])];
  for (let index = 0; index < ROUNDS; index++) for (const each of trees) await round1(each, index);
  const describe = (each: Tree) => {
    const m = each.measured;
    return {
      bash: `${round(median(m.bashSandboxed) - median(m.bashUnconfined))} ms (sandboxed ${round(median(m.bashSandboxed))} vs unconfined ${round(median(m.bashUnconfined))})`,
      read: `${round(median(m.read), 2)} ms`,
      edit: `${round(median(m.edit), 2)} ms`,
      snapshot: `${round(median(m.snapshot))} ms`,
    };
  };
  const [ours, theirs] = trees.map(describe);
  const beside = (key: keyof NonNullable<typeof ours>) =>
    `${ours![key]}${theirs ? `; ${against}: ${theirs[key]}` : ''}`;
  const command = `${against ? `AGENT_BENCH_AGAINST=${against} ` : ''}npm run bench -- --only isolation`;
  await Promise.all(trees.map((each) => each.sandboxed.close?.()));
  return [
    {
      figure: `Sandbox overhead per Bash call, default network (median of ${BASH_CALLS * ROUNDS} \`true\` calls each, interleaved; target ≤ 30 ms)`,
      value: beside('bash'),
      command,
    },
    {
      figure: `Read of a 200-line file 4 directories down, per call (median of ${READ_CALLS * ROUNDS}; target ≤ 5 ms above before)`,
      value: beside('read'),
      command,
    },
    {
      figure: `Edit of the same file, per call, journal and atomic replace (median of ${EDIT_CALLS * ROUNDS}; target ≤ 5 ms above before)`,
      value: beside('edit'),
      command,
    },
    {
      figure: `Incremental snapshot of 10,001 files after 10 changed (median of ${SNAPSHOTS * ROUNDS}; target ≤ 200 ms)`,
      value: beside('snapshot'),
      command,
    },
  ];
}
