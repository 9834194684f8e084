/** Git for tests of `repo` sessions: git run with an identity, and a bare remote made from files. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scratchDir } from './paths';

export const git = (args: string[], cwd?: string) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).trim();

/** A bare repository, reached by a file:// URL, whose `main` holds `files` in one commit. */
export function bareRemote(files: Record<string, string>): string {
  const work = scratchDir('remote-work');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  git(['init', '-q', '-b', 'main'], work);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'start'], work);
  const bare = join(scratchDir('remote'), 'app.git');
  git(['clone', '-q', '--bare', work, bare]);
  return bare;
}
