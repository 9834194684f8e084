/**
 * The price table: every current model of the installed SDK is priced (none deprecated), the
 * defaults included, and a call's cost is its tokens at its model's rates.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { addUsage, ZERO_USAGE } from '../../../src/shared/conversation';
import { callCostUsd, formatUsd, MODEL_PRICES, PRICES_CHECKED } from '../../../src/shared/model-prices';
import { DEFAULT_MODEL, DEFAULT_SMALL_MODEL, MODEL_TABLE } from '../../../src/shared/models';

const sdkRoot = dirname(require.resolve('@anthropic-ai/sdk'));
const sdkModels = [
  ...readFileSync(join(sdkRoot, 'resources', 'messages', 'messages.d.ts'), 'utf8')
    .match(/export type Model = ([^;]+);/)![1]!
    .matchAll(/'([^']+)'/g),
].map((match) => match[1]!);
const { DEPRECATED_MODELS } = require(join(sdkRoot, 'internal', 'data', 'deprecated-models.js')) as {
  DEPRECATED_MODELS: Record<string, string>;
};

test('every current SDK model, the defaults and the model table have a price; no deprecated one', () => {
  const current = sdkModels.filter((model) => !(model in DEPRECATED_MODELS));
  expect(current.length).toBeGreaterThan(5);
  for (const model of [...current, DEFAULT_MODEL, DEFAULT_SMALL_MODEL, ...Object.keys(MODEL_TABLE)])
    expect(MODEL_PRICES[model]).toBeDefined();
  for (const model of Object.keys(MODEL_PRICES)) {
    expect(sdkModels).toContain(model);
    expect(Object.keys(DEPRECATED_MODELS)).not.toContain(model);
  }
  expect(PRICES_CHECKED).toMatch(/^\d{4}-\d{2}-\d{2}$/);
});

test('a call costs its tokens of each kind at its model’s rates', () => {
  // Sonnet 5.5: $2 in, $10 out, $2.50 cache write, $0.10 cache read per million tokens.
  const tokens = {
    inputTokens: 1_000_000,
    outputTokens: 100_000,
    cacheCreationInputTokens: 200_000,
    cacheReadInputTokens: 3_000_000,
  };
  expect(callCostUsd('claude-sonnet-5-5', tokens)).toBe(2 + 1 + 0.5 + 0.3);
  expect(callCostUsd('claude-sonnet-5-5', { ...ZERO_USAGE, inputTokens: 1234, outputTokens: 56 })).toBe(0.003028);
});

test('Haiku 5.5 pays its long-prompt rates on every token of a prompt over 100K', () => {
  const short = { inputTokens: 90_000, outputTokens: 1_000, cacheCreationInputTokens: 0, cacheReadInputTokens: 10_000 };
  expect(callCostUsd('claude-haiku-5-5', short)).toBe(0.0096);
  const long = { ...short, cacheReadInputTokens: 10_001 };
  expect(callCostUsd('claude-haiku-5-5', long)).toBe(0.04800005);
});

test('an unknown model has no cost (never a throw), nor does a name from Object’s prototype', () => {
  const tokens = { ...ZERO_USAGE, inputTokens: 10 };
  expect(callCostUsd('some-proxy-model', tokens)).toBeUndefined();
  expect(callCostUsd('constructor', tokens)).toBeUndefined();
  expect(
    callCostUsd('some-proxy-model', tokens, { 'some-proxy-model': { ...MODEL_PRICES['claude-sonnet-5-5']! } }),
  ).toBe(0.00002);
});

test('usage sums cost when any call had one, and stays without when none had', () => {
  expect(addUsage(ZERO_USAGE, ZERO_USAGE)).toEqual(ZERO_USAGE);
  expect(addUsage(ZERO_USAGE, { ...ZERO_USAGE, costUsd: 0.1 })).toEqual({ ...ZERO_USAGE, costUsd: 0.1 });
  // Many small calls add up without float noise.
  let total = ZERO_USAGE;
  for (let call = 0; call < 10; call++) total = addUsage(total, { ...ZERO_USAGE, costUsd: 0.1 });
  expect(total.costUsd).toBe(1);
  expect([formatUsd(0.04211), formatUsd(12.345)]).toEqual(['$0.0421', '$12.35']);
});
