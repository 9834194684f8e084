/**
 * The workflow input reference in docs/input.md, generated from the zod schema
 * (src/shared/input.ts) and the descriptions in input-descriptions.ts:
 *
 *   npm run docs:input            # rewrites the table between the markers in docs/input.md
 *   npm run docs:input -- --check # exits 1 when docs/input.md is not what this writes
 *
 * test/unit/docs/input-reference.test.ts runs the same check, and fails when a schema field
 * has no description.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { agentInputSchema } from '../../src/shared/input';
import { INPUT_FIELD_DOCS } from './input-descriptions';

export const INPUT_DOC_PATH = join(__dirname, '..', '..', 'docs', 'input.md');
export const START_MARKER = '<!-- input-reference:start -->';
export const END_MARKER = '<!-- input-reference:end -->';

/** The part of a JSON Schema this renders. */
interface JsonSchema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxItems?: number;
}

/** The input's fields as JSON Schema, in the order the schema declares them. */
export function inputSchemaFields(): Record<string, JsonSchema> {
  const schema = z.toJSONSchema(agentInputSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return schema.properties ?? {};
}

/** Schema fields without a description, and descriptions of fields the schema no longer has. */
export function descriptionGaps(): { undocumented: string[]; stale: string[] } {
  const fields = Object.keys(inputSchemaFields());
  const documented = Object.keys(INPUT_FIELD_DOCS);
  return {
    undocumented: fields.filter((field) => !documented.includes(field)),
    stale: documented.filter((field) => !fields.includes(field)),
  };
}

const number = (value: number) => value.toLocaleString('en-US');
const literal = (value: unknown) => `\`${JSON.stringify(value)}\``;

/** An integer's bounds as people read them: `> 0`, `1–32`, `≥ 4,096`. */
function integerBounds(schema: JsonSchema): string {
  const min =
    schema.exclusiveMinimum !== undefined ? Math.floor(schema.exclusiveMinimum) + 1 : (schema.minimum ?? undefined);
  const max = schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) return ` ${number(min)}–${number(max)}`;
  if (min === 1) return ' > 0';
  if (min !== undefined) return ` ≥ ${number(min)}`;
  if (max !== undefined) return ` ≤ ${number(max)}`;
  return '';
}

/** An object's shape in one line: `{ url, ref? }`, or `object` when it is too big for a cell. */
function objectShape(schema: JsonSchema): string {
  const properties = Object.keys(schema.properties ?? {});
  if (properties.length > 0 && properties.length <= 4) {
    const required = schema.required ?? [];
    return `\`{ ${properties.map((name) => (required.includes(name) ? name : `${name}?`)).join(', ')} }\``;
  }
  const values = schema.additionalProperties;
  if (properties.length === 0 && typeof values === 'object') {
    const inner = values.type === 'string' ? ' of strings' : values.type === 'object' ? ' of objects' : '';
    return `object${inner}, by name`;
  }
  return 'object';
}

/** A field's type and the limits the schema sets, in Markdown. */
export function describeType(schema: JsonSchema): string {
  if (schema.anyOf) return schema.anyOf.map(describeType).join(' \\| ');
  if (schema.enum) return schema.enum.map(literal).join(' \\| ');
  if (schema.const !== undefined) return literal(schema.const);
  switch (schema.type) {
    case 'integer':
      return `integer${integerBounds(schema)}`;
    case 'string':
      return schema.minLength ? 'string (non-empty)' : 'string';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const items = schema.items ?? {};
      const limit = schema.maxItems !== undefined ? `, at most ${number(schema.maxItems)}` : '';
      if (items.enum) return `string[] of ${items.enum.map((value) => `\`${String(value)}\``).join(', ')}${limit}`;
      const shape =
        items.type === 'object' ? `${objectShape(items).replace(/`$/, '[]`')}` : `${items.type ?? 'value'}[]`;
      return `${shape}${limit}`;
    }
    case 'object':
      return objectShape(schema);
    default:
      return 'any';
  }
}

/** A table cell: one line, its pipes escaped (pipes already escaped stay as they are). */
function cell(text: string): string {
  return text.replace(/\n/g, ' ').replace(/(?<!\\)\|/g, '\\|');
}

/** The Markdown table of every input field. */
export function renderInputTable(): string {
  const rows = Object.entries(inputSchemaFields()).map(([field, schema]) => {
    const doc = INPUT_FIELD_DOCS[field];
    const description = doc?.description ?? '**undocumented**: add it to scripts/docs/input-descriptions.ts';
    return `| \`${field}\` | ${describeType(schema)} | ${cell(doc?.default ?? '—')} | ${cell(description)} |`;
  });
  return ['| field | type | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** `markdown` with the table between the markers replaced by the one the schema gives now. */
export function withInputReference(markdown: string): string {
  const start = markdown.indexOf(START_MARKER);
  const end = markdown.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/input.md needs the markers ${START_MARKER} … ${END_MARKER}`);
  const generated = [
    START_MARKER,
    '<!-- Generated from src/shared/input.ts and scripts/docs/input-descriptions.ts by `npm run docs:input`: do not edit by hand. -->',
    '',
    renderInputTable(),
    '',
  ].join('\n');
  return markdown.slice(0, start) + generated + markdown.slice(end);
}

function main(args: string[]): number {
  const current = readFileSync(INPUT_DOC_PATH, 'utf8');
  const wanted = withInputReference(current);
  const { undocumented } = descriptionGaps();
  if (undocumented.length) console.error(`Input fields without a description: ${undocumented.join(', ')}`);
  if (args.includes('--check')) {
    if (current === wanted && !undocumented.length) return 0;
    console.error('docs/input.md is out of date: run npm run docs:input');
    return 1;
  }
  if (current !== wanted) writeFileSync(INPUT_DOC_PATH, wanted);
  console.log(current === wanted ? 'docs/input.md is up to date' : 'docs/input.md written');
  return undocumented.length ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
