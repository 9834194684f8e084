/**
 * The short soak (the full one is `npm run soak`): a 30-turn session with a small context window
 * (so it compacts) and continue-as-new every 12 turns, while the worker is SIGKILLed twice.
 */
import { expectedLog, formatFigures, nextStep, runSoak } from '../support/soak';

jest.setTimeout(300_000);

test('the scripted session finds its step from the conversation, so retries and compactions keep their place', () => {
  const request = (messages: { role: string; content: unknown }[]) =>
    ({ headers: {}, body: { model: 'm', max_tokens: 1, messages } }) as never;
  expect(nextStep(request([{ role: 'user', content: 'go' }]))).toBe(0);
  expect(
    nextStep(
      request([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_soak_7', content: 'ok' }] }]),
    ),
  ).toBe(8);
  expect(
    nextStep(request([{ role: 'user', content: [{ type: 'text', text: '<summary>NEXT_STEP=12</summary>' }] }])),
  ).toBe(12);
  expect(expectedLog(2)).toBe('<<START>>\nedit 1\nedit 2\n<<END>>\n');
});

test('a long session survives SIGKILLs, compactions and continue-as-new with every edit applied once', async () => {
  const figures = await runSoak({
    turns: 30,
    kills: 2,
    fillerChars: 1500,
    contextWindowTokens: 30_000,
    continueAsNewAfterTurns: 12,
    seed: 7,
  });
  console.log(formatFigures(figures));
  expect(figures).toMatchObject({ turns: 32, kills: 2, repositoryMatches: true }); // a Read, 30 edits, the last answer
  expect(figures.runs).toBeGreaterThanOrEqual(3);
  expect(figures.compactions).toBeGreaterThanOrEqual(1);
  expect(figures.maxEventBytes).toBeLessThan(512 * 1024);
  expect(figures.maxRunHistoryBytes).toBeLessThan(10 * 1024 * 1024);
});
