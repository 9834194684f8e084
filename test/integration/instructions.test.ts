/**
 * Instruction files as users rely on them: the workdir root's AGENTS.md and the worker's
 * AGENT_INSTRUCTIONS_DIR reach the model in the system prompt of the first request; a nested
 * CLAUDE.md reaches it in the result of the first Read of a file under its directory, once.
 */
import { byTurn, lastToolResults, reply, text, toolResultText, toolUse } from '../support/fake-anthropic';
import { Harness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

let harness: Harness;
const userDir = makeRepo({ 'CLAUDE.md': 'Answer in the voice of a ship captain.' });

beforeAll(async () => {
  harness = await Harness.start();
  await harness.startWorker({ instructionsDir: userDir });
});
afterAll(() => harness?.stop());

test('root and user instructions are in the system prompt; a nested CLAUDE.md follows the first Read under its directory', async () => {
  harness.fake.handler = byTurn([
    reply([toolUse('Read', { file_path: 'packages/api/handler.ts' })]),
    reply([toolUse('Read', { file_path: 'packages/api/routes.ts' })]),
    reply([text('Read both.')]),
  ]);
  const workdir = makeRepo({
    'AGENTS.md': 'Always run npm test before you finish.',
    'packages/api/CLAUDE.md': 'Handlers in this package use snake_case names.',
    'packages/api/handler.ts': 'export const get_user = 1;\n',
    'packages/api/routes.ts': 'export const routes = [];\n',
  });
  const result = await harness.run({ prompt: 'look at the API', workdir, toolSummaries: false });
  expect(result.reason).toBe('completed');

  const modelCalls = harness.fake.requests;
  const system = JSON.stringify(modelCalls[0]!.body.system);
  expect(system).toContain('Always run npm test before you finish.');
  expect(system).toContain('Answer in the voice of a ship captain.');
  expect(system).not.toContain('snake_case');

  const firstRead = toolResultText(lastToolResults(modelCalls[1]!)[0]!);
  expect(firstRead).toContain('export const get_user = 1;');
  expect(firstRead).toContain('<system-reminder>');
  expect(firstRead).toContain(
    'packages/api/CLAUDE.md (project instructions for packages/api/, checked into the codebase):\n\nHandlers in this package use snake_case names.',
  );
  // Shown once: the next Read in that directory comes without it.
  expect(toolResultText(lastToolResults(modelCalls[2]!)[0]!)).not.toContain('snake_case');
});
