import { workdirProblem } from '../../../../src/activities/session/workdir-check';

const contentDir = '/srv/agent/content';

test.each([
  ['/', /system directory/],
  ['/etc', /system directory/],
  ['/usr', /system directory/],
  ['/home', /system directory/],
  ['/tmp', /system directory/],
  ['/etc/nginx', /inside \/etc/],
  ['/proc/1/root', /inside \/proc/],
  ['/srv/agent/content', /inside the content store/],
  ['/srv/agent/content/objects', /inside the content store/],
  ['/srv/agent', /holds the content store/],
])('%s is never a workdir', (workdir, reason) => {
  expect(workdirProblem(workdir, { contentDir, roots: [] })).toMatch(reason);
});

test('a repository directory is a workdir', () => {
  expect(workdirProblem('/home/dev/repo', { contentDir, roots: [] })).toBeUndefined();
  expect(workdirProblem('/tmp/checkout', { contentDir, roots: [] })).toBeUndefined();
});

test('with workspace roots, only directories inside them', () => {
  const roots = ['/workspace', '/home/dev/src'];
  expect(workdirProblem('/workspace/repo', { contentDir, roots })).toBeUndefined();
  expect(workdirProblem('/home/dev/src/a/b', { contentDir, roots })).toBeUndefined();
  expect(workdirProblem('/home/dev/secrets', { contentDir, roots })).toMatch(
    /not inside the workspace roots \(AGENT_WORKSPACE_ROOTS: \/workspace, \/home\/dev\/src\)/,
  );
  expect(workdirProblem('/workspace-other', { contentDir, roots })).toMatch(/not inside the workspace roots/);
});

test("the worker's git directories of repo sessions are never a workdir, nor inside or around one", () => {
  const privateDirs = ['/root/.durable-agent/git'];
  expect(workdirProblem('/root/.durable-agent/git/s1-abcd.git', { roots: [], privateDirs })).toMatch(
    /lies inside \/root\/.durable-agent\/git, where the worker keeps the git directories/,
  );
  expect(workdirProblem('/root/.durable-agent', { roots: [], privateDirs })).toMatch(
    /holds \/root\/.durable-agent\/git/,
  );
  expect(workdirProblem('/root/.durable-agent/workspaces/s1-abcd', { roots: [], privateDirs })).toBeUndefined();
});
