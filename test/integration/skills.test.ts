/**
 * Skills as users rely on them: a trusted repository's `.claude/skills/<name>/SKILL.md` and the
 * worker's AGENT_SKILLS_DIR are listed to the model with the Skill tool, and a Skill call loads
 * the skill's instructions into the conversation; an untrusted repository's are not used, and the
 * transcript says so.
 */
import type { TranscriptPage } from '../../src/shared/contract';
import { byTurn, lastToolResults, reply, text, toolResultText, toolUse } from '../support/fake-anthropic';
import { Harness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

let harness: Harness;
const skillsDir = makeRepo({
  'changelog/SKILL.md':
    '---\nname: changelog\ndescription: Writes the changelog entry\n---\nAdd a line to CHANGELOG.md.\n',
});

beforeAll(async () => {
  harness = await Harness.start();
  await harness.startWorker({ skillsDir });
});
afterAll(() => harness?.stop());

const DEPLOY =
  '---\nname: deploy\ndescription: Deploys the app to an environment\nallowed-tools: Bash(./deploy.sh:*)\n---\n' +
  '# Deploy\n\nRun `./deploy.sh $ARGUMENTS`, then check `scripts/smoke.sh`.\n';

test("a trusted repository's skill is listed with the Skill tool, and a Skill call loads its instructions", async () => {
  const before = harness.fake.requests.length;
  harness.fake.handler = byTurn([
    reply([toolUse('Skill', { skill: 'deploy', args: 'staging' }, 'toolu_skill')]),
    reply([text('Deployed.')]),
  ]);
  const workdir = makeRepo({ '.claude/skills/deploy/SKILL.md': DEPLOY, 'scripts/smoke.sh': 'echo ok\n' });
  const handle = await harness.start({
    prompt: 'Deploy to staging',
    workdir,
    trustRepoHooks: true,
    toolSummaries: false,
  });
  expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'Deployed.' });

  const [first, second] = harness.fake.requests.slice(before);
  expect(first!.body.tools?.map((tool) => tool.name)).toContain('Skill');
  const system = JSON.stringify(first!.body.system);
  expect(system).toContain('The following skills are available for use with the Skill tool:');
  expect(system).toContain('- deploy: Deploys the app to an environment');
  expect(system).toContain('- changelog: Writes the changelog entry');

  const loaded = lastToolResults(second!)[0]!;
  expect(loaded).toMatchObject({ tool_use_id: 'toolu_skill' });
  expect(loaded.is_error ?? false).toBe(false);
  const loadedText = toolResultText(loaded);
  expect(loadedText).toMatch(/^Base directory for this skill: \/.*\/\.claude\/skills\/deploy\n/);
  expect(loadedText).toContain('Run `./deploy.sh staging`, then check `scripts/smoke.sh`.');

  const page = await handle.query<TranscriptPage>('transcript');
  expect(page.entries.find((entry) => entry.type === 'session')).toMatchObject({ skills: ['deploy', 'changelog'] });
});

test("an untrusted repository's skills are not used; the worker's still are", async () => {
  const before = harness.fake.requests.length;
  harness.fake.handler = byTurn([
    reply([toolUse('Skill', { skill: 'deploy' }, 'toolu_skill')]),
    reply([text('No such skill.')]),
  ]);
  const workdir = makeRepo({ '.claude/skills/deploy/SKILL.md': DEPLOY });
  const handle = await harness.start({ prompt: 'Deploy', workdir, toolSummaries: false });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  const [first, second] = harness.fake.requests.slice(before);
  const system = JSON.stringify(first!.body.system);
  expect(system).not.toContain('- deploy:');
  expect(system).toContain('- changelog:');
  const refused = lastToolResults(second!)[0]!;
  expect(refused.is_error).toBe(true);
  expect(toolResultText(refused)).toContain('Unknown skill: deploy. Skills: changelog.');
  const page = await handle.query<TranscriptPage>('transcript');
  expect(page.entries.find((entry) => entry.type === 'session')).toMatchObject({
    skills: ['changelog'],
    skippedSkills: ['.claude/skills/deploy/SKILL.md (not trusted)'],
  });
});
