/**
 * The StructuredOutput tool of a session with input `outputFormat` (shared/structured-output.ts):
 * its API definition (the caller's schema as its input schema) and the plan of each call, its
 * input validated against the schema here, in the model activity, with Ajv (which compiles the
 * schema to code: no place for it in the workflow). A call that does not match is planned as
 * invalid, with Claude Code's error; the workflow answers it like any invalid call.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ApplicationFailure } from '@temporalio/common';
import type { PlannedToolUse } from '../../shared/activity-io';
import { toolUseError } from '../../shared/conversation';
import { ErrorType } from '../../shared/errors';
import {
  schemaMismatchText,
  STRUCTURED_OUTPUT_DESCRIPTION,
  STRUCTURED_OUTPUT_TOOL,
} from '../../shared/structured-output';

/** Compiled schemas by their JSON: a session's schema is compiled once per worker, not once per call. */
const compiled = new Map<string, ValidateFunction>();
const COMPILED_MAX = 100;

/** Ajv as Claude Code uses it: every error reported, no coercion, unknown formats tolerated. */
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });

/** A schema compiled, or a non-retryable failure saying why it cannot be (the session ends with it). */
export function compileOutputSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate) return validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw ApplicationFailure.nonRetryable(
      `Input outputFormat.schema is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
      ErrorType.InvalidWorkflowInput,
    );
  }
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validate);
  return validate;
}

/** The tool as the API sees it (its schema compiled first: one that cannot be ends the session before any call). */
export function structuredOutputDefinition(schema: Record<string, unknown>): Anthropic.Tool {
  compileOutputSchema(schema);
  const { $schema: _ignored, ...inputSchema } = schema;
  return {
    name: STRUCTURED_OUTPUT_TOOL,
    description: STRUCTURED_OUTPUT_DESCRIPTION,
    input_schema: inputSchema as Anthropic.Tool.InputSchema,
  };
}

/** The problems of an input that does not match, one per line (`/path: message`), or undefined when it matches. */
export function outputProblems(schema: Record<string, unknown>, input: unknown): string | undefined {
  const validate = compileOutputSchema(schema);
  if (validate(input)) return undefined;
  return (validate.errors ?? []).map(problemOf).join('; ') || 'the output does not match the schema';
}

function problemOf(error: ErrorObject): string {
  const where = `${error.instancePath || 'root'}: ${error.message ?? error.keyword}`;
  const extra = error.keyword === 'additionalProperties' ? (error.params as { additionalProperty?: string }) : {};
  return extra.additionalProperty ? `${where} ('${extra.additionalProperty}' is not allowed)` : where;
}

/** A StructuredOutput call planned: valid ones are carried out by the workflow (`sessionControl`), others answered with the problems. */
export function planStructuredOutput(
  schema: Record<string, unknown>,
  block: { id: string; name: string; input: unknown },
): PlannedToolUse {
  const rules = { sessionControl: 'structured_output' as const };
  const problems = outputProblems(schema, block.input);
  if (problems !== undefined) {
    return {
      id: block.id,
      name: block.name,
      input: block.input,
      plan: { ok: false, errorText: toolUseError(schemaMismatchText(problems)), rules },
    };
  }
  return {
    id: block.id,
    name: block.name,
    input: block.input,
    plan: { ok: true, concurrencySafe: false, summary: STRUCTURED_OUTPUT_TOOL, rules },
  };
}
