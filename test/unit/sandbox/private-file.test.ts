import { existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { withPrivateFile } from '../../../src/sandbox/private-file';

test('the file is readable while used, outside any workdir, bound at its own path, and gone afterwards', async () => {
  let seen = '';
  const path = await withPrivateFile('transcript.jsonl', 'line\n', async (file) => {
    expect(file.path.startsWith(tmpdir())).toBe(true);
    expect(file.bind.source).toBe(file.bind.target);
    expect(statSync(file.bind.source).mode & 0o777).toBe(0o711);
    seen = readFileSync(file.path, 'utf8');
    return file.path;
  });
  expect(seen).toBe('line\n');
  expect(existsSync(path)).toBe(false);
});

test('removed when the command fails too', async () => {
  let path = '';
  await expect(
    withPrivateFile('t', 'x', async (file) => {
      path = file.path;
      throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  expect(existsSync(path)).toBe(false);
});
