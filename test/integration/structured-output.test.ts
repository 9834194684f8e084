/**
 * Input `outputFormat` through a real Temporal server and worker: the model's first answer does
 * not match the schema, it is told why, and its corrected StructuredOutput call is the result's
 * `structuredOutput`.
 */
import type { AgentResult } from '../../src/shared/contract';
import {
  isToolSummary,
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  type RecordedRequest,
} from '../support/fake-anthropic';
import { Harness, makeRepo } from '../support/harness';

jest.setTimeout(120_000);

let harness: Harness;

afterEach(async () => {
  await harness?.stop();
});

const schema = {
  type: 'object',
  properties: { failing: { type: 'integer' }, cause: { type: 'string' } },
  required: ['failing', 'cause'],
  additionalProperties: false,
};

test('a schema-checked structured result: an invalid answer, the validation errors, the corrected one', async () => {
  const requests: RecordedRequest[] = [];
  harness = await Harness.start((request) => {
    if (isToolSummary(request.body)) return reply([text('Gave the answer.')]);
    requests.push(request);
    if (requests.length === 1) return reply([text('Two tests fail.'), toolUse('StructuredOutput', { failing: 'two' })]);
    return reply([toolUse('StructuredOutput', { failing: 2, cause: 'a renamed export' })]);
  });
  await harness.startWorker();
  const handle = await harness.start({
    prompt: 'Triage the failing tests',
    workdir: makeRepo({ 'a.txt': 'a\n' }),
    outputFormat: { type: 'json_schema', schema },
  });
  const result = (await handle.result()) as AgentResult;

  expect(result).toMatchObject({ reason: 'completed', structuredOutput: { failing: 2, cause: 'a renamed export' } });
  // Offered as Claude Code offers it: the caller's schema is the tool's input schema.
  const offered = (requests[0]!.body.tools ?? []).find((tool) => tool.name === 'StructuredOutput');
  expect(offered).toMatchObject({ input_schema: schema });
  // The second call was told what was wrong with the first; nothing followed the valid one.
  expect(requests).toHaveLength(2);
  const [error] = lastToolResults(requests[1]!);
  expect(error).toMatchObject({ is_error: true });
  expect(toolResultText(error!)).toBe(
    "<tool_use_error>Output does not match required schema: root: must have required property 'cause'; /failing: must be integer</tool_use_error>",
  );
});
