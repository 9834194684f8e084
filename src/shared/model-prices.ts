/**
 * The one price table: what a model call costs, per model, in USD per million tokens. Plain data
 * and pure arithmetic, so the model activities price each call they make (the workflow only sums
 * the numbers they return, which keeps it deterministic) and tests check the sums.
 *
 * Checked against Anthropic's published prices (https://platform.claude.com/docs/en/about-claude/pricing
 * and each model's overview page) on PRICES_CHECKED. Names: every model of the installed
 * @anthropic-ai/sdk `Model` union that is not in its deprecation table (test/unit/shared/model-prices.test.ts
 * checks both), which includes the defaults of models.ts. `cacheWrite` is the 5-minute rate (the
 * only one the agent writes: `cache_control: {type: 'ephemeral'}`).
 *
 * A model not in the table (a proxy's, a newer one) has no cost: its calls carry no `costUsd` and
 * the worker logs a warning once. `AGENT_PRICES_FILE` (activities/model/prices-file.ts) adds or
 * replaces rows, in the shape of `PriceTable`.
 */

/** USD per million tokens of each kind. */
export interface TokenRates {
  input: number;
  output: number;
  /** Writing the prompt cache with the default 5-minute lifetime. */
  cacheWrite: number;
  /** Cache hits and refreshes. */
  cacheRead: number;
}

export interface ModelPrice extends TokenRates {
  /**
   * A model priced by prompt length (Claude Haiku 5.5): a request whose prompt (input, cache
   * reads and writes) is over `aboveTokens` pays these rates on every token, its output included.
   */
  longPrompt?: TokenRates & { aboveTokens: number };
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The day the table was last checked against Anthropic's pricing page. */
export const PRICES_CHECKED = '2026-12-02';

/** The rates of the table's models (standard API, not batch; USD per million tokens). */
export const MODEL_PRICES: PriceTable = {
  'claude-fable-5-2': { input: 8, output: 40, cacheWrite: 10, cacheRead: 0.2 },
  'claude-mythos-5-2': { input: 8, output: 40, cacheWrite: 10, cacheRead: 0.2 },
  'claude-fable-5-1': { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 },
  'claude-mythos-5-1': { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 },
  'claude-fable-5': { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 },
  'claude-mythos-5': { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 },
  'claude-opus-5-5': { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 },
  'claude-opus-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 },
  'claude-sonnet-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
  'claude-haiku-5-5': {
    input: 0.1,
    output: 0.5,
    cacheWrite: 0.125,
    cacheRead: 0.01,
    longPrompt: { aboveTokens: 100_000, input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 },
  },
  'claude-opus-4-8': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-7': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-6': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  'claude-haiku-4-5-20251001': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
};

/** The tokens of one call, as `Usage` counts them. */
export interface CallTokens {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

/**
 * What one call cost in USD, or undefined when the table has no price for its model. Rounded to
 * a millionth of a cent, so sums stay readable and equal wherever they are made.
 */
export function callCostUsd(model: string, tokens: CallTokens, table: PriceTable = MODEL_PRICES): number | undefined {
  const price = Object.hasOwn(table, model) ? table[model] : undefined;
  if (!price) return undefined;
  const prompt = tokens.inputTokens + tokens.cacheCreationInputTokens + tokens.cacheReadInputTokens;
  const rates = price.longPrompt && prompt > price.longPrompt.aboveTokens ? price.longPrompt : price;
  const perMillion =
    tokens.inputTokens * rates.input +
    tokens.outputTokens * rates.output +
    tokens.cacheCreationInputTokens * rates.cacheWrite +
    tokens.cacheReadInputTokens * rates.cacheRead;
  return roundUsd(perMillion / 1_000_000);
}

/** USD to 1e-8 (a millionth of a cent): sums of many calls stay free of float noise. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}

/** `$0.0123` for people: four decimals under a dollar, two above. */
export function formatUsd(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}
