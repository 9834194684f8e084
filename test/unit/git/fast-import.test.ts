/**
 * The fast-import stream: paths C-quoted so that no name can end a line early or start a command
 * (checked against real git), a blob written once for paths of the same content, deletions
 * before writes, and a write whose bytes turned out wrong left out of the commit.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type BlobWrite, importStream, quotePath } from '../../../src/git/fast-import';
import { scratchDir } from '../../support/paths';

const bytes =
  (text: string): BlobWrite['open'] =>
  async () => ({
    size: Buffer.byteLength(text),
    chunks: (async function* () {
      yield Buffer.from(text);
    })(),
    problem: () => undefined,
  });

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test('quotePath escapes quotes, backslashes, newlines and control bytes, and leaves UTF-8 as it is', () => {
  expect(quotePath('plain.txt')).toBe('"plain.txt"');
  expect(quotePath('a "b"\\c\nd\te\x01\x7f')).toBe('"a \\"b\\"\\\\c\\nd\\011e\\001\\177"');
  expect(quotePath('ünï cødé 名前')).toBe('"ünï cødé 名前"');
});

test('git reads back every name exactly, and a name that looks like a command is only a name', async () => {
  const names = [
    'plain.txt',
    ' leading and trailing ',
    '"quoted"',
    'new\nline',
    'tab\there',
    'back\\slash',
    'ünï cødé',
    'x\nD README.md',
    'M 100644 :1 evil',
  ];
  const gitDir = join(scratchDir('fast-import'), 'repo.git');
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  const writes: BlobWrite[] = names.map((path, index) => ({
    path,
    mode: '100644',
    key: index % 2 ? 'odd' : 'even',
    open: bytes(index % 2 ? 'odd\n' : 'even\n'),
  }));
  const { stream, failed } = importStream({
    ref: 'refs/heads/t',
    from: '',
    message: 'm\n',
    time: 1,
    deletions: [],
    writes,
  });
  const text = (await collect(stream)).toString().replace('from \n', '');
  execFileSync('git', ['--git-dir', gitDir, 'fast-import', '--quiet', '--done'], { input: text });
  expect(failed.size).toBe(0);
  const listed = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--name-only', 'refs/heads/t'], {
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  expect(listed.sort()).toEqual([...names].sort());
  // Two contents, two blobs.
  expect(text.match(/^blob$/gm)).toHaveLength(2);
});

test('deletions come before writes, and a write whose bytes were wrong is left out with its reason', async () => {
  const wrong: BlobWrite = {
    path: 'big.bin',
    mode: '100644',
    key: 'big',
    open: async () => ({
      size: 1,
      chunks: (async function* () {
        yield Buffer.from('x');
      })(),
      problem: () => 'changed',
    }),
  };
  const gone: BlobWrite = {
    path: 'gone.bin',
    mode: '100755',
    key: 'gone',
    open: async () => ({ unavailable: 'not a regular file' }),
  };
  const good: BlobWrite = { path: 'dir', mode: '120000', key: 'link', open: bytes('target') };
  const { stream, failed } = importStream({
    ref: 'refs/heads/t',
    from: 'abc',
    message: 'm',
    time: 1,
    deletions: ['dir/file'],
    writes: [wrong, gone, good],
  });
  const text = (await collect(stream)).toString();
  expect(text.indexOf('D "dir/file"')).toBeLessThan(text.indexOf('M 120000'));
  expect(text).not.toContain('"big.bin"');
  expect(text).not.toContain('"gone.bin"');
  expect(text.trimEnd().endsWith('done')).toBe(true);
  expect([...failed]).toEqual([
    ['big.bin', 'changed'],
    ['gone.bin', 'not a regular file'],
  ]);
});
