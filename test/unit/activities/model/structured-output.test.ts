import {
  outputProblems,
  planStructuredOutput,
  structuredOutputDefinition,
} from '../../../../src/activities/model/structured-output';
import { ErrorType } from '../../../../src/shared/errors';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { title: { type: 'string', minLength: 1 }, count: { type: 'integer' } },
  required: ['title', 'count'],
  additionalProperties: false,
};

describe('StructuredOutput in the model activity', () => {
  test('its definition is the caller’s schema, with Claude Code’s description', () => {
    const definition = structuredOutputDefinition(schema);
    expect(definition.name).toBe('StructuredOutput');
    expect(definition.description).toMatch(/^Use this tool to return your final response/);
    expect(definition.input_schema).toEqual({
      type: 'object',
      properties: schema.properties,
      required: schema.required,
      additionalProperties: false,
    });
  });

  test('a matching call is carried out by the workflow; one that does not match gets every problem', () => {
    expect(
      planStructuredOutput(schema, { id: 't', name: 'StructuredOutput', input: { title: 'a', count: 2 } }),
    ).toEqual({
      id: 't',
      name: 'StructuredOutput',
      input: { title: 'a', count: 2 },
      plan: {
        ok: true,
        concurrencySafe: false,
        summary: 'StructuredOutput',
        rules: { sessionControl: 'structured_output' },
      },
    });
    const invalid = planStructuredOutput(schema, {
      id: 't',
      name: 'StructuredOutput',
      input: { title: '', count: 'two', extra: 1 },
    });
    expect(invalid.plan).toEqual({
      ok: false,
      rules: { sessionControl: 'structured_output' },
      errorText:
        "<tool_use_error>Output does not match required schema: root: must NOT have additional properties ('extra' is not allowed); " +
        '/title: must NOT have fewer than 1 characters; /count: must be integer</tool_use_error>',
    });
    expect(outputProblems(schema, { title: 'x' })).toBe("root: must have required property 'count'");
  });

  test('a schema that does not compile is a clear, final failure', () => {
    const bad = { type: 'object', properties: { a: { type: 'nope' } } };
    expect(() => structuredOutputDefinition(bad)).toThrow(
      expect.objectContaining({
        type: ErrorType.InvalidWorkflowInput,
        nonRetryable: true,
        message: expect.stringMatching(/^Input outputFormat.schema is not a valid JSON Schema: /),
      }),
    );
  });
});
