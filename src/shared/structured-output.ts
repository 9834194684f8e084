/**
 * Structured output (input `outputFormat`, as Claude Code's Agent SDK option of that name): the
 * session is offered a `StructuredOutput` tool whose input schema is the caller's JSON Schema; the
 * model answers by calling it. The call is validated in the model activity (Ajv); a call that does
 * not match gets Claude Code's error back, and the model tries again, at most
 * STRUCTURED_OUTPUT_MAX_ATTEMPTS times. A valid call ends the turn; its input is the result's
 * `structuredOutput`.
 */
import { z } from 'zod';

/** The tool's name, as Claude Code calls it (the workflow never names it: the plan's `sessionControl` says what it is). */
export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

/** Failed attempts (calls that did not match, turns ended without a call) before the session gives up: Claude Code's MAX_STRUCTURED_OUTPUT_RETRIES default. */
export const STRUCTURED_OUTPUT_MAX_ATTEMPTS = 5;

/** A schema larger than this (as JSON) is refused at the start: it travels with every model call. */
export const OUTPUT_SCHEMA_MAX_CHARS = 64_000;

/** Claude Code's description of the tool (its `prompt`). */
export const STRUCTURED_OUTPUT_DESCRIPTION =
  'Use this tool to return your final response in the requested structured format. You MUST call this tool exactly once at the end of your response to provide the structured output.';

/** The result of a valid call (Claude Code's). */
export const STRUCTURED_OUTPUT_ACCEPTED = 'Structured output provided successfully';

/** What the model is told when it ended its turn without calling the tool (Claude Code's enforcement). */
export const STRUCTURED_OUTPUT_REMINDER =
  'You MUST call the StructuredOutput tool to complete this request. Call this tool now.';

/** The error of a call whose input does not match (Claude Code's wording). */
export function schemaMismatchText(problems: string): string {
  return `Output does not match required schema: ${problems}`;
}

/** Why the session gave up (Claude Code's wording), with the last validation error when there was one. */
export function structuredOutputExhaustedText(attempts: number, lastError?: string): string {
  const text = `Failed to provide valid structured output after ${attempts} attempts`;
  return lastError ? `${text} — last StructuredOutput error: ${lastError}` : text;
}

/** Input `outputFormat`: `{type: "json_schema", schema}`; the schema's root is an object (the API's tool input is one). */
export const outputFormatSchema = z
  .object({
    type: z.literal('json_schema'),
    schema: z
      .record(z.string(), z.unknown())
      .refine((schema) => schema.type === 'object', 'must describe an object: `"type": "object"` at its root')
      .refine(
        (schema) => JSON.stringify(schema).length <= OUTPUT_SCHEMA_MAX_CHARS,
        `must be at most ${OUTPUT_SCHEMA_MAX_CHARS} characters as JSON`,
      ),
  })
  .strict();

export type OutputFormat = z.infer<typeof outputFormatSchema>;
