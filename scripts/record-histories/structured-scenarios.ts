/** Input outputFormat (issue 26): a structured answer corrected after the validation errors, and one that never comes. */
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import type { Scenario } from './scenario';

const outputFormat = {
  type: 'json_schema',
  schema: {
    type: 'object',
    properties: { files: { type: 'integer' }, summary: { type: 'string' } },
    required: ['files', 'summary'],
    additionalProperties: false,
  },
};

export const structuredScenarios: Scenario[] = [
  {
    // An invalid call (errors back), a turn ended without a call (the reminder), then a valid call.
    name: 'structured-output-corrected',
    files: { 'a.txt': 'a\n' },
    input: { outputFormat },
    handler: byTurn([
      reply([text('Counting.'), toolUse('StructuredOutput', { files: 'one' })]),
      reply([text('There is one file.')]),
      reply([toolUse('StructuredOutput', { files: 1, summary: 'one text file' })]),
    ]),
  },
  {
    name: 'structured-output-exhausted',
    files: {},
    input: { outputFormat },
    handler: () => reply([toolUse('StructuredOutput', { files: 'many' })]),
  },
];
