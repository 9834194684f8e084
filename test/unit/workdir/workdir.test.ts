/**
 * The worker's file access beneath a workdir: links inside are followed, links out, `..` and
 * absolute paths elsewhere are refused without naming what lies outside, special files are
 * never opened, and a racer swapping a directory for a symlink to outside gets nothing written
 * or read outside, however often it wins the race.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Workdir } from '../../../src/workdir/workdir';
import { WorkdirRefusal } from '../../../src/workdir/workdir-refusal';
import { PROJECT_ROOT, scratchDir } from '../../support/paths';

let root: string;
let path: string;
let secret: string;

beforeEach(() => {
  root = scratchDir('workdir');
  path = join(root, 'repo');
  secret = join(root, 'secret');
  mkdirSync(join(path, 'src'), { recursive: true });
  mkdirSync(secret);
  writeFileSync(join(secret, 'id_rsa'), 'PRIVATE KEY');
  writeFileSync(join(path, 'AGENTS.md'), 'Be brief.');
  writeFileSync(join(path, 'src/a.ts'), 'export const a = 1;\n');
});

const using = <T>(use: (workdir: Workdir) => Promise<T> | T) => Workdir.using(path, use);
const read = (workdir: Workdir, file: string) =>
  workdir.readFile(file, file, { maxBytes: 1e6, tooLarge: () => 'too large' }).then(({ data }) => data.toString());

describe('paths', () => {
  test('relative and absolute paths inside, and links inside, are followed', async () => {
    symlinkSync('AGENTS.md', join(path, 'CLAUDE.md'));
    symlinkSync(join(path, 'src'), join(path, 'source'));
    await using(async (workdir) => {
      expect(await read(workdir, 'CLAUDE.md')).toBe('Be brief.');
      expect(await read(workdir, join(path, 'source/a.ts'))).toContain('a = 1');
      expect(await read(workdir, 'src/../AGENTS.md')).toBe('Be brief.');
      expect(workdir.realPath('source/a.ts')).toBe(join(path, 'src/a.ts'));
      expect(workdir.realPath('new/file.ts')).toBe(join(path, 'new/file.ts'));
    });
  });

  test.each([
    ['../secret/id_rsa', 'is outside the working directory'],
    ['/etc/passwd', 'is outside the working directory'],
    ['~/.ssh/id_rsa', 'is outside the working directory'],
    ['src/../../secret/id_rsa', 'is outside the working directory'],
  ])('%s is refused', async (requested, message) => {
    await using(async (workdir) => {
      await expect(read(workdir, requested)).rejects.toThrow(message);
    });
  });

  test('a link leading out is refused, and the refusal does not name its target', async () => {
    symlinkSync(secret, join(path, 'keys'));
    symlinkSync('../secret/id_rsa', join(path, 'key'));
    await using(async (workdir) => {
      for (const requested of ['keys/id_rsa', 'key']) {
        const error = await read(workdir, requested).catch((caught: Error) => caught);
        expect(error).toBeInstanceOf(WorkdirRefusal);
        expect((error as Error).message).toContain('symbolic link that leads outside');
        expect((error as Error).message).not.toContain(secret);
      }
      await expect(
        workdir.writeFile('keys/authorized_keys', { data: 'ssh-rsa X', temporaryName: '.t' }),
      ).rejects.toThrow('leads outside');
      await expect(workdir.writeFile('key', { data: 'overwritten', temporaryName: '.t' })).rejects.toThrow(
        'leads outside',
      );
    });
    expect(readdirSync(secret)).toEqual(['id_rsa']);
    expect(readFileSync(join(secret, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY');
  });

  test('a workdir whose path goes through a symlink is not opened', () => {
    symlinkSync(path, join(root, 'alias'));
    expect(() => Workdir.open(join(root, 'alias'))).toThrow("is not a directory's real path");
  });

  test('NUL bytes and over-long paths are refusals the model can act on', async () => {
    await using(async (workdir) => {
      await expect(read(workdir, 'a\0b')).rejects.toThrow('NUL byte');
      await expect(read(workdir, 'x'.repeat(5000))).rejects.toThrow('at most 4096');
    });
  });
});

describe('special files', () => {
  test('a FIFO, a socket and a device are refused without being opened or blocking', async () => {
    execFileSync('mkfifo', [join(path, 'fifo')]);
    await using(async (workdir) => {
      await expect(read(workdir, 'fifo')).rejects.toThrow('is not a regular file (a FIFO)');
      await expect(read(workdir, 'src')).rejects.toThrow('is a directory');
      const handle = workdir.directory('')!;
      try {
        expect(handle.openFile('fifo')).toBeUndefined();
        expect(handle.openFile('AGENTS.md')).toBeDefined();
      } finally {
        handle.close();
      }
    });
  });
});

describe('writing', () => {
  test("writes create directories, keep an existing file's mode, and give new files to the workdir's owner", async () => {
    writeFileSync(join(path, 'run.sh'), 'echo 1\n', { mode: 0o755 });
    chownSync(path, 1000, 1000);
    await using(async (workdir) => {
      await workdir.writeFile('deep/new/file.txt', { data: 'new', temporaryName: '.file.tmp' });
      await workdir.writeFile('run.sh', { data: 'echo 2\n', temporaryName: '.run.tmp' });
    });
    expect(readFileSync(join(path, 'deep/new/file.txt'), 'utf8')).toBe('new');
    expect(statSync(join(path, 'run.sh')).mode & 0o777).toBe(0o755);
    if (process.getuid?.() === 0) {
      expect(statSync(join(path, 'deep/new/file.txt')).uid).toBe(1000);
      expect(statSync(join(path, 'deep')).uid).toBe(1000);
      // The replaced file keeps its owner (root's here), as an editor saving it would.
      expect(statSync(join(path, 'run.sh')).uid).toBe(0);
    }
    expect(readdirSync(join(path, 'deep/new'))).toEqual(['file.txt']);
  });

  test('writing through a link inside writes its target and keeps the link', async () => {
    symlinkSync('AGENTS.md', join(path, 'CLAUDE.md'));
    await using((workdir) => workdir.writeFile('CLAUDE.md', { data: 'Be thorough.', temporaryName: '.c.tmp' }));
    expect(lstatSync(join(path, 'CLAUDE.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(path, 'AGENTS.md'), 'utf8')).toBe('Be thorough.');
  });

  test('remove takes a link away, never its target', async () => {
    symlinkSync(join(secret, 'id_rsa'), join(path, 'key'));
    await using((workdir) => workdir.remove('key'));
    expect(existsSync(join(path, 'key'))).toBe(false);
    expect(readFileSync(join(secret, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY');
  });
});

describe('a racer swapping a directory for a link to outside', () => {
  let racer: ChildProcess | undefined;

  async function race(directory: string): Promise<void> {
    racer = spawn('python3', [join(PROJECT_ROOT, 'test/support/racer.py'), directory, secret, '30'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      racer!.stdout!.once('data', () => resolve());
      racer!.once('exit', (code) => reject(new Error(`racer exited ${code}`)));
    });
  }

  afterEach(async () => {
    if (racer && racer.exitCode === null) {
      const exited = new Promise((resolve) => racer!.once('exit', resolve));
      racer.kill('SIGKILL');
      await exited;
    }
    racer = undefined;
  });

  test('200 writes land inside or are refused; none lands outside', async () => {
    mkdirSync(join(path, 'd'));
    await race(join(path, 'd'));
    const outcomes = { written: 0, refused: 0 };
    await using(async (workdir) => {
      for (let attempt = 0; attempt < 200; attempt++) {
        await workdir
          .writeFile(`d/authorized_keys_${attempt}`, { data: 'ssh-rsa ATTACKER', temporaryName: `.tmp-${attempt}` })
          .then(
            () => outcomes.written++,
            () => outcomes.refused++,
          );
      }
    });
    expect(readdirSync(secret)).toEqual(['id_rsa']);
    expect(outcomes.written + outcomes.refused).toBe(200);
  });

  test('2,000 resolutions give a path inside or a refusal, never a stray system error', async () => {
    mkdirSync(join(path, 'd'));
    await race(join(path, 'd'));
    const outcomes = new Set<string>();
    await using(async (workdir) => {
      for (let attempt = 0; attempt < 2000; attempt++) {
        try {
          outcomes.add(workdir.realPath('d/file.txt') === join(path, 'd/file.txt') ? 'inside' : 'elsewhere');
        } catch (error) {
          outcomes.add(error instanceof WorkdirRefusal ? 'refused' : `error ${(error as NodeJS.ErrnoException).code}`);
        }
      }
    });
    expect([...outcomes].filter((outcome) => outcome !== 'inside' && outcome !== 'refused')).toEqual([]);
  });

  test('200 reads return what is inside or are refused; none returns the secret', async () => {
    mkdirSync(join(path, 'd'));
    writeFileSync(join(path, 'd/id_rsa'), 'inside');
    await race(join(path, 'd'));
    const seen = new Set<string>();
    await using(async (workdir) => {
      for (let attempt = 0; attempt < 200; attempt++) {
        await read(workdir, 'd/id_rsa').then(
          (text) => seen.add(text),
          () => seen.add('refused'),
        );
      }
    });
    expect(seen.has('PRIVATE KEY')).toBe(false);
  });
});

test("a system error the model sees names the file, not the worker's descriptors", async () => {
  const { inWorkdir } = await import('../../../src/activities/tools/paths');
  const long = 'n'.repeat(300);
  const error = await inWorkdir(path, (workdir) =>
    workdir.readFile(`src/${long}`, long, { maxBytes: 10, tooLarge: () => 'too large' }),
  ).catch((caught: Error) => caught);
  expect(error).toMatchObject({ code: 'ENAMETOOLONG', message: expect.stringContaining(long) });
  expect((error as Error).message).not.toContain('/proc/self/fd');
});
