/**
 * The worker's price table: the built-in one (src/shared/model-prices.ts), with the rows of
 * `AGENT_PRICES_FILE` over it, read once when the worker starts; and each call's usage priced
 * with it, by the activity that made the call (the workflow only sums what they return).
 *
 * The file is JSON in the table's shape, one entry per model, each adding a model or replacing
 * the built-in row of that name:
 *
 *     { "claude-sonnet-5-5": { "input": 2, "output": 10, "cacheWrite": 2.5, "cacheRead": 0.1 } }
 *
 * Hostile input: it is parsed with a strict schema, and a file that does not parse stops the
 * worker at startup with a message naming the file and the field (never a session's failure).
 */
import { readFileSync } from 'node:fs';
import { log } from '@temporalio/activity';
import { z } from 'zod';
import type { Usage } from '../../shared/conversation';
import { callCostUsd, MODEL_PRICES, type PriceTable } from '../../shared/model-prices';

/** A rate: USD per million tokens, a finite number, at least 0. */
const rate = z.number().finite().nonnegative();
const rates = { input: rate, output: rate, cacheWrite: rate, cacheRead: rate };
const modelPrice = z.strictObject({
  ...rates,
  longPrompt: z.strictObject({ ...rates, aboveTokens: z.number().int().positive() }).optional(),
});
/** Model names as the API spells them: no empty or absurd keys. */
const priceFile = z.record(z.string().min(1).max(200), modelPrice);

/** The table from a file's text, over the built-in one; an error that says where the file is wrong. */
export function parsePricesFile(
  text: string,
  base: PriceTable = MODEL_PRICES,
): { ok: true; table: PriceTable } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  const parsed = priceFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.map(String).join('.') : '(the file)';
    return {
      ok: false,
      error: `${where}: ${issue.message} (expected {"<model>": {"input", "output", "cacheWrite", "cacheRead"}} in USD per million tokens)`,
    };
  }
  return { ok: true, table: { ...base, ...parsed.data } };
}

/** `AGENT_PRICES_FILE` read and checked, or the built-in table when it is unset. Throws a clear error. */
export function loadPriceTable(path: string | undefined): PriceTable {
  if (!path) return MODEL_PRICES;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`AGENT_PRICES_FILE=${path}: cannot be read: ${(error as Error).message}`);
  }
  const parsed = parsePricesFile(text);
  if (!parsed.ok) throw new Error(`AGENT_PRICES_FILE=${path}: ${parsed.error}`);
  return parsed.table;
}

/** Models already warned about, so a long session logs its unknown model once per worker. */
const unpriced = new Set<string>();

/**
 * A call's usage with its cost, when its model has a price (else as it was, with a warning once).
 * `model` is the one the reply names; `requested`, the one the request named, is priced when the
 * reply's is not in the table (an endpoint that answers with a dated or aliased id).
 */
export function pricedUsage(usage: Usage, model: string, table: PriceTable, requested?: string): Usage {
  const costUsd = callCostUsd(model, usage, table) ?? (requested ? callCostUsd(requested, usage, table) : undefined);
  if (costUsd !== undefined) return { ...usage, costUsd };
  if (!unpriced.has(model)) {
    unpriced.add(model);
    warn(`No price for model ${model}: its calls have no cost (add it with AGENT_PRICES_FILE).`);
  }
  return usage;
}

/** The activity's logger inside an activity; the console elsewhere (unit tests). */
function warn(message: string): void {
  try {
    log.warn(message);
  } catch {
    console.warn(message);
  }
}
