/**
 * Branch names from workflow ids: every id gives a name real git accepts, ids git accepted keep
 * their branch, and distinct ids never share one.
 */
import { execFileSync } from 'node:child_process';
import { branchForSession, isSafeBranchId, MAX_BRANCH_ID_BYTES } from '../../../src/shared/branch-name';

/** Asks git itself, once for many names: prints the names it refuses. */
function refusedByGit(names: string[]): string[] {
  const script = 'for name in "$@"; do git check-ref-format "refs/heads/$name" || printf "%s\\n" "$name"; done';
  const refused = execFileSync('sh', ['-c', script, 'sh', ...names], { encoding: 'utf8' });
  return refused.split('\n').filter(Boolean);
}

const HOSTILE_IDS = [
  'repo-lint-2026-12-01T13:16:03Z',
  'a b',
  'tab\there',
  'ctrl\u0001char',
  'del\u007fchar',
  'tilde~1',
  'caret^2',
  'what?',
  'star*',
  'bracket[0]',
  'back\\slash',
  'dots..dots',
  '...',
  'at@{1}',
  '-leading-dash',
  '.hidden',
  'part/.hidden/x',
  'ends.lock',
  'dir.lock/x',
  'ends.',
  'ends/',
  '/starts',
  'double//slash',
  '@',
  '.',
  '/',
  'x'.repeat(300),
  `${'y/'.repeat(80)}z`,
  'ü'.repeat(90),
  '😀'.repeat(40),
  ' ',
];

test('every id, however hostile, names a branch git accepts', () => {
  // The check itself can fail: taken as they are, git refuses these ids.
  expect(refusedByGit(HOSTILE_IDS.slice(0, 4).map((id) => `durable-agent/${id}`))).toHaveLength(4);
  const branches = HOSTILE_IDS.map(branchForSession);
  expect(refusedByGit(branches)).toEqual([]);
  for (const branch of branches)
    expect(Buffer.byteLength(branch.slice('durable-agent/'.length))).toBeLessThanOrEqual(MAX_BRANCH_ID_BYTES);
});

test('ids git accepted keep the branch they always had', () => {
  const valid = [
    'refactor-1',
    'session/1',
    'repo_lint.2026-12-01T13-16-03Z',
    'Ünïcode-ok',
    'a'.repeat(MAX_BRANCH_ID_BYTES),
  ];
  expect(refusedByGit(valid.map((id) => `durable-agent/${id}`))).toEqual([]);
  for (const id of valid) {
    expect(isSafeBranchId(id)).toBe(true);
    expect(branchForSession(id)).toBe(`durable-agent/${id}`);
  }
});

test("a schedule's id keeps its readable part, with a hash of the whole id", () => {
  expect(branchForSession('lint-2026-12-01T13:16:03Z')).toMatch(
    /^durable-agent\/lint-2026-12-01T13-16-03Z-[0-9a-f]{10}$/,
  );
  expect(branchForSession('lint-2026-12-01T13:16:03Z')).toBe(branchForSession('lint-2026-12-01T13:16:03Z'));
});

test('distinct ids give distinct branches, also where replacing or cutting makes them alike', () => {
  const alike = [
    'a:b',
    'a-b',
    'a~b',
    'a b',
    `${'x'.repeat(150)}1`,
    `${'x'.repeat(150)}2`,
    'x'.repeat(101),
    'x'.repeat(102),
    'ends.lock',
    'ends-lock',
  ];
  const branches = new Set(alike.map(branchForSession));
  expect(branches.size).toBe(alike.length);
});
