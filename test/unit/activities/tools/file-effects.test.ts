/**
 * What Write and Edit share: the file as it is now, the read-before-write rule, and the
 * journalled write a retried call recognises instead of applying twice.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  alreadyApplied,
  assertReadAndUnchanged,
  fileToChange,
  readIfExists,
  writeFileOnce,
} from '../../../../src/activities/tools/file-effects';
import { sha256 } from '../../../../src/activities/tools/paths';
import { Workdir } from '../../../../src/workdir/workdir';
import { toolWorkdir, type ToolWorkdir } from '../../../support/tool-workdir';

let repo: ToolWorkdir;

beforeEach(() => {
  repo = toolWorkdir('file-effects');
});

describe('readIfExists', () => {
  test('the content, or null when there is no such file; over 10 MB is refused, pointing to Bash', async () => {
    repo.write('a.txt', 'héllo');
    repo.write('big.txt', Buffer.alloc(10 * 1024 * 1024 + 1, 'x'));
    await Workdir.using(repo.path, async (workdir) => {
      expect(await readIfExists(workdir, 'a.txt')).toBe('héllo');
      expect(await readIfExists(workdir, 'missing.txt')).toBeNull();
      await expect(readIfExists(workdir, 'big.txt')).rejects.toThrow(
        'big.txt is 10.5 MB, more than Write and Edit change (10.5 MB). Use Bash to change it.',
      );
    });
  });
});

describe('assertReadAndUnchanged', () => {
  test('passes only for a file the session read as it is now, and says what to do otherwise', () => {
    const path = join(repo.path, 'a.txt');
    const read = repo.context({ knownFiles: new Map([[path, sha256('v1')]]) });
    expect(() => assertReadAndUnchanged(read, path, 'v1', 'writing to')).not.toThrow();
    expect(() => assertReadAndUnchanged(read, path, 'v2', 'writing to')).toThrow(
      'File has been modified since it was last read, either by the user, by a command, or by a linter. Read it again before writing to it.',
    );
    expect(() => assertReadAndUnchanged(repo.context(), path, 'v1', 'editing')).toThrow(
      'File has not been read yet. Read it first before editing it.',
    );
  });
});

describe('writeFileOnce and alreadyApplied', () => {
  test('records the intent in the journal, then writes atomically, leaving no temporary file', async () => {
    repo.write('a.txt', 'before');
    const context = repo.context();
    const path = join(repo.path, 'a.txt');
    const output = await writeFileOnce(context, path, 'before', 'after', 'written');
    expect(output).toEqual({ text: 'written', fileState: { path, sha256: sha256('after') } });
    expect(repo.read('a.txt')).toBe('after');
    const record = await repo.journal.find(context.sessionId, context.callKey);
    expect(record).toMatchObject({
      path,
      beforeHash: sha256('before'),
      afterHash: sha256('after'),
      message: 'written',
    });
    expect(record?.temporary).toMatch(new RegExp(`^${repo.path}/a\\.txt\\.[0-9a-f]{12}\\.agent-tmp$`));
    expect(existsSync(record!.temporary!)).toBe(false);
    expect(readdirSync(repo.path)).toEqual(['a.txt']);
  });

  test('a new file is recorded with no before; a long name gets a temporary name within 255 bytes', async () => {
    const context = repo.context();
    const name = `${'n'.repeat(250)}.txt`;
    await writeFileOnce(context, join(repo.path, name), null, 'x', 'created');
    const record = await repo.journal.find(context.sessionId, context.callKey);
    expect(record?.beforeHash).toBeNull();
    const temporary = record!.temporary!.slice(repo.path.length + 1);
    expect(Buffer.byteLength(temporary)).toBeLessThanOrEqual(255);
    expect(temporary).toMatch(/^[0-9a-f]{16}\.[0-9a-f]{12}\.agent-tmp$/);
    expect(repo.read(name)).toBe('x');
  });

  test('the same call finds its change applied only while the file is exactly as it left it', async () => {
    const context = repo.context();
    const path = join(repo.path, 'a.txt');
    expect(await alreadyApplied(context, path, 'anything')).toBeUndefined();
    await writeFileOnce(context, path, null, 'after', 'created it');
    expect(await alreadyApplied(context, path, 'after')).toEqual({
      text: 'created it',
      fileState: { path, sha256: sha256('after') },
    });
    expect(await alreadyApplied(context, path, 'after, and changed again')).toBeUndefined();
    expect(await alreadyApplied(context, path, null)).toBeUndefined();
    expect(await alreadyApplied(context, join(repo.path, 'b.txt'), 'after')).toBeUndefined();
    // Another call (another key) never passes for this one.
    expect(await alreadyApplied(repo.context(), path, 'after')).toBeUndefined();
  });
});

describe('fileToChange', () => {
  test('the real path and current content; a missing file has none', async () => {
    repo.write('src/a.ts', 'code');
    expect(await fileToChange(repo.context(), 'src/a.ts')).toEqual({
      path: join(repo.path, 'src/a.ts'),
      current: 'code',
      replayed: undefined,
    });
    expect(await fileToChange(repo.context(), 'src/new.ts')).toMatchObject({ current: null });
  });

  test('a retried call whose write landed gets its earlier result back', async () => {
    const context = repo.context();
    const path = join(repo.path, 'a.txt');
    await writeFileOnce(context, path, null, 'v1', 'File created successfully at: a.txt');
    expect((await fileToChange({ ...context, attempt: 2 }, 'a.txt')).replayed).toEqual({
      text: 'File created successfully at: a.txt',
      fileState: { path, sha256: sha256('v1') },
    });
  });

  test('a settings file is refused before anything is read, unless a person approved the call', async () => {
    await expect(fileToChange(repo.context(), '.mcp.json')).rejects.toThrow(/needs a person's approval/);
    expect(await fileToChange(repo.context({ approved: true }), '.mcp.json')).toMatchObject({ current: null });
  });
});
