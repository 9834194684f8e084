/**
 * docs/input.md's input reference is what scripts/docs/input-reference.ts makes of the zod schema
 * (src/shared/input.ts): a field added to the schema without a description, or a table edited by
 * hand, fails here. `npm run docs:input` writes the table again.
 */
import { readFileSync } from 'node:fs';
import {
  descriptionGaps,
  describeType,
  INPUT_DOC_PATH,
  inputSchemaFields,
  renderInputTable,
  withInputReference,
} from '../../../scripts/docs/input-reference';

test('every input field of the schema has a description, and every description a field', () => {
  expect(descriptionGaps()).toEqual({ undocumented: [], stale: [] });
});

test('docs/input.md holds the table the generator makes (run `npm run docs:input` when this fails)', () => {
  const current = readFileSync(INPUT_DOC_PATH, 'utf8');
  expect(current).toBe(withInputReference(current));
});

test('the table has one row per schema field, in the order the schema declares them', () => {
  const fields = Object.keys(inputSchemaFields());
  const rows = renderInputTable()
    .split('\n')
    .slice(2)
    .map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1]);
  expect(rows).toEqual(fields);
  expect(fields).toEqual(expect.arrayContaining(['prompt', 'workdir', 'repo', 'hooks', 'mcpServers', 'agents']));
});

test('types and limits are read from the schema', () => {
  expect(describeType({ type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER })).toBe('integer > 0');
  expect(describeType({ type: 'integer', exclusiveMinimum: 0, maximum: 32 })).toBe('integer 1–32');
  expect(describeType({ type: 'integer', minimum: 4096 })).toBe('integer ≥ 4,096');
  expect(describeType({ type: 'string', enum: ['auto', 'ask'] })).toBe('`"auto"` \\| `"ask"`');
  expect(describeType({ anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['none'] }] })).toBe(
    'boolean \\| `"none"`',
  );
  expect(
    describeType({
      type: 'object',
      properties: { url: { type: 'string' }, ref: { type: 'string' } },
      required: ['url'],
    }),
  ).toBe('`{ url, ref? }`');
  expect(describeType({ type: 'array', maxItems: 200, items: { type: 'string' } })).toBe('string[], at most 200');
});

test('a field missing from the descriptions shows as undocumented in the table, never silently', () => {
  const markdown = '# x\n\n<!-- input-reference:start -->\nold\n<!-- input-reference:end -->\nafter\n';
  const generated = withInputReference(markdown);
  expect(generated).toMatch(/^# x\n\n<!-- input-reference:start -->\n/);
  expect(generated).toMatch(/\n<!-- input-reference:end -->\nafter\n$/);
  expect(generated).not.toContain('\nold\n');
  expect(() => withInputReference('no markers')).toThrow(/markers/);
});
