/**
 * The file tools stay inside the workdir and cannot stall the worker: the escapes of the
 * security review, called directly against a real filesystem.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { unconfined } from '../../../../src/sandbox/command-sandbox';
import { LocalContentStore } from '../../../../src/store/content-store';
import { LocalEffectJournal } from '../../../../src/store/effect-journal';
import { editTool } from '../../../../src/activities/tools/edit';
import { globTool } from '../../../../src/activities/tools/glob';
import { grepTool } from '../../../../src/activities/tools/grep';
import { GrepSearch } from '../../../../src/activities/tools/grep-search';
import { readTool } from '../../../../src/activities/tools/read';
import { TOOLS } from '../../../../src/activities/tools/registry';
import { createToolActivities } from '../../../../src/activities/tools/run-tool';
import type { ToolContext } from '../../../../src/activities/tools/tool';
import type { RunToolOutput } from '../../../../src/shared/activity-io';
import { scratchDir } from '../../../support/paths';
import { toolContext } from '../../../support/tool-context';

let root: string;
let workdir: string;

beforeEach(() => {
  root = scratchDir('confinement');
  workdir = join(root, 'repo');
  mkdirSync(join(workdir, 'src'), { recursive: true });
  writeFileSync(join(workdir, 'src/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, '.env'), 'SECRET=outside\n');
  mkdirSync(join(root, 'other-session'));
  writeFileSync(join(root, 'other-session', 'notes.ts'), 'SECRET=other session\n');
});

const context = (overrides: Partial<ToolContext> = {}) => toolContext(workdir, overrides);

describe('Glob and Grep patterns stay inside the workdir', () => {
  test.each([
    ['../**/.env'],
    ['../*'],
    ['/etc/pass*'],
    ['{..,src}/**'],
    ['src/../../*'],
    ['\\.\\./*'],
    ['~/.ssh/*'],
    ['{/etc,src}/*'],
  ])('Glob %j is refused', async (pattern) => {
    await expect(globTool.execute({ pattern }, context())).rejects.toThrow(/outside the working directory/);
  });

  test('patterns that stay inside, absolute ones included, work', async () => {
    expect((await globTool.execute({ pattern: `${workdir}/src/*.ts` }, context())).text).toBe('src/a.ts');
    expect((await globTool.execute({ pattern: '../src/*.ts', path: 'src' }, context())).text).toBe('src/a.ts');
    expect((await globTool.execute({ pattern: '{src,lib}/*.ts' }, context())).text).toBe('src/a.ts');
  });

  test.each([
    [{ pattern: 'root', glob: '/etc/passwd', output_mode: 'content' as const }],
    [{ pattern: 'SECRET', glob: '../**/.env' }],
    [{ pattern: 'SECRET', glob: '{..,x}/*' }],
    [{ pattern: 'SECRET', path: '..' }],
    [{ pattern: 'root', path: '/etc/passwd' }],
  ])('Grep %j is refused', async (input) => {
    await expect(grepTool.execute(input, context())).rejects.toThrow(/outside the working directory/);
  });

  test('a symlink in the repository to a file outside is skipped: it is never listed or read', async () => {
    symlinkSync(join(root, '.env'), join(workdir, 'leak.env'));
    symlinkSync(join(root, 'other-session'), join(workdir, 'other'));
    expect((await globTool.execute({ pattern: '**/*' }, context())).text).toBe('src/a.ts');
    expect((await grepTool.execute({ pattern: 'SECRET', output_mode: 'content' }, context())).text).toBe(
      'No matches found',
    );
    await expect(readTool.execute({ file_path: 'leak.env' }, context())).rejects.toThrow(
      /outside the working directory/,
    );
  });
});

describe('nothing stalls the worker', () => {
  test('FIFOs, sockets and devices are refused at once, also several together', async () => {
    execFileSync('mkfifo', [
      join(workdir, 'pipe1'),
      join(workdir, 'pipe2'),
      join(workdir, 'pipe3'),
      join(workdir, 'pipe4'),
      join(workdir, 'pipe5'),
    ]);
    symlinkSync('/dev/zero', join(workdir, 'zero'));
    const reads = [1, 2, 3, 4, 5].map((n) => readTool.execute({ file_path: `pipe${n}` }, context()));
    for (const read of reads) await expect(read).rejects.toThrow(/is not a regular file \(a FIFO\)/);
    await expect(editTool.execute({ file_path: 'pipe1', old_string: 'a', new_string: 'b' }, context())).rejects.toThrow(
      /not a regular file/,
    );
    await expect(readTool.execute({ file_path: 'zero' }, context())).rejects.toThrow(/outside the working directory/);
    expect((await grepTool.execute({ pattern: 'export', output_mode: 'count' }, context())).text).toBe('src/a.ts:1');
    expect((await globTool.execute({ pattern: 'pipe*' }, context())).text).toBe('No files found');
  });

  test('a 700 MB binary is refused after its first 8 KB; a huge text file before it is loaded', async () => {
    const binary = join(workdir, 'disk.img');
    await truncate(binary, 0).catch(() => writeFileSync(binary, ''));
    await truncate(binary, 700 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    await expect(readTool.execute({ file_path: 'disk.img' }, context())).rejects.toThrow(
      /disk\.img looks like a binary file \(734\.0 MB\)/,
    );
    writeFileSync(join(workdir, 'big.log'), 'log line\n'.repeat(1_300_000));
    await expect(readTool.execute({ file_path: 'big.log' }, context())).rejects.toThrow(
      /big\.log is 11\.7 MB, more than Read loads \(10\.5 MB\)\. Use Grep/,
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  test('a catastrophic regex is stopped at its deadline while the event loop keeps running', async () => {
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 20);
    const job = {
      pattern: '(a+)+$',
      ignoreCase: false,
      mode: 'content' as const,
      lineNumbers: true,
      before: 0,
      after: 0,
      multiline: false,
      maxEntries: 10,
      maxFileBytes: 1e6,
      maxLineChars: 500,
    };
    writeFileSync(join(workdir, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    const search = new GrepSearch(job, new AbortController().signal, 1_000);
    try {
      await search.add({ fd: openSync(join(workdir, 'evil.txt'), 'r'), shown: 'evil.txt' });
      await expect(search.finish()).rejects.toThrow(/stopped after 1 s.*backtrack catastrophically/);
    } finally {
      clearInterval(ticking);
      await search.close();
    }
    // A blocked event loop would not have ticked at all during that second.
    expect(ticks).toBeGreaterThan(10);
  });

  test('a cancelled search ends at once', async () => {
    writeFileSync(join(workdir, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    const controller = new AbortController();
    const search = grepTool.execute({ pattern: '(a+)+$' }, context({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 200);
    await expect(search).rejects.toThrow(/cancelled/);
  });
});

describe('malformed paths are answered, never retried', () => {
  const runTool = (name: string, input: unknown): Promise<RunToolOutput> =>
    new MockActivityEnvironment().run(
      createToolActivities({
        store: new LocalContentStore(scratchDir('store')),
        journal: new LocalEffectJournal(scratchDir('journal')),
        sandbox: unconfined(),
      }).runTool,
      { sessionId: 'session-1', toolUseId: 'toolu_1', name, input, workdir, fileStates: [] },
    );

  test.each([
    ['Read', { file_path: 'src/a\0.ts' }, /NUL byte/],
    ['Read', { file_path: `${'x/'.repeat(3000)}a` }, /paths are at most 4096/],
    ['Glob', { pattern: 'src/\0*' }, /NUL byte/],
    ['Grep', { pattern: 'a', path: 'src\0' }, /NUL byte/],
    ['Write', { file_path: 'a\0', content: '' }, /NUL byte/],
  ])('%s %j is an is_error result', async (name, input, message) => {
    const output = await runTool(name, input);
    expect(output.result.isError).toBe(true);
    expect(JSON.stringify(output.result.content)).toMatch(message);
  });

  test('a symlink loop is an is_error result', async () => {
    symlinkSync('loop-b', join(workdir, 'loop-a'));
    symlinkSync('loop-a', join(workdir, 'loop-b'));
    const output = await runTool('Read', { file_path: 'loop-a' });
    expect(output.result.isError).toBe(true);
  });

  test('planning a call with a NUL byte in its path does not fail the model activity', async () => {
    const planned = await TOOLS.plan({ id: 'toolu_1', name: 'Read', input: { file_path: 'a\0' } }, workdir, ['Read']);
    expect(planned.plan.ok).toBe(true);
  });
});
