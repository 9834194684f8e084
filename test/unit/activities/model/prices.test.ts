/** AGENT_PRICES_FILE: rows over the built-in table; a bad file is a clear error naming the field, never a crash later. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPriceTable, parsePricesFile, pricedUsage } from '../../../../src/activities/model/prices';
import { ZERO_USAGE } from '../../../../src/shared/conversation';
import { MODEL_PRICES } from '../../../../src/shared/model-prices';

const row = { input: 1, output: 2, cacheWrite: 1.25, cacheRead: 0.1 };

test('a file adds models and replaces rows; the others stay built in', () => {
  const parsed = parsePricesFile(JSON.stringify({ 'my-proxy-model': row, 'claude-sonnet-5-5': { ...row, input: 9 } }));
  expect(parsed.ok).toBe(true);
  if (!parsed.ok) return;
  expect(parsed.table['my-proxy-model']).toEqual(row);
  expect(parsed.table['claude-sonnet-5-5']!.input).toBe(9);
  expect(parsed.table['claude-opus-5-5']).toEqual(MODEL_PRICES['claude-opus-5-5']);
});

test.each([
  ['not json', /^not JSON/],
  ['[1, 2]', /^\(the file\): /],
  [JSON.stringify({ m: { ...row, input: -1 } }), /^m\.input: .*expected \{"<model>"/],
  [JSON.stringify({ m: { ...row, input: 'free' } }), /^m\.input: /],
  [JSON.stringify({ m: { input: 1, output: 2 } }), /^m\.cacheWrite: /],
  [JSON.stringify({ m: { ...row, extra: 1 } }), /^m: /],
  [JSON.stringify({ m: { ...row, longPrompt: { ...row } } }), /^m\.longPrompt\.aboveTokens: /],
])('a hostile file %s is refused with where it is wrong', (text, message) => {
  const parsed = parsePricesFile(text);
  expect(parsed.ok).toBe(false);
  if (!parsed.ok) expect(parsed.error).toMatch(message);
});

test('the worker reads the file once; unset: the built-in table; unreadable or wrong: an error naming the variable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prices-'));
  const good = join(dir, 'prices.json');
  writeFileSync(good, JSON.stringify({ 'my-proxy-model': row }));
  expect(loadPriceTable(good)['my-proxy-model']).toEqual(row);
  expect(loadPriceTable(undefined)).toBe(MODEL_PRICES);
  expect(() => loadPriceTable(join(dir, 'missing.json'))).toThrow(/^AGENT_PRICES_FILE=.*missing\.json: cannot be read/);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{"m": {"input": 1}}');
  expect(() => loadPriceTable(bad)).toThrow(/^AGENT_PRICES_FILE=.*bad\.json: m\.output: /);
});

test('a call is priced by the activity; a model with no price keeps its tokens and gets no cost', () => {
  const usage = { ...ZERO_USAGE, inputTokens: 1_000, outputTokens: 100 };
  expect(pricedUsage(usage, 'claude-sonnet-5-5', MODEL_PRICES)).toEqual({ ...usage, costUsd: 0.003 });
  // A reply naming a dated id the table lacks is priced as the model the request named.
  expect(pricedUsage(usage, 'claude-sonnet-5-5-20261101', MODEL_PRICES, 'claude-sonnet-5-5').costUsd).toBe(0.003);
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  expect(pricedUsage(usage, 'unpriced-model', MODEL_PRICES)).toEqual(usage);
  expect(pricedUsage(usage, 'unpriced-model', MODEL_PRICES)).toEqual(usage);
  expect(warn).toHaveBeenCalledTimes(1);
  warn.mockRestore();
});
