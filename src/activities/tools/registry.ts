import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { PlannedToolUse } from '../../shared/types';
import { bashTool } from './bash';
import { editTool } from './edit';
import { globTool } from './glob';
import { grepTool } from './grep';
import { displayPath, resolveInWorkdir } from './paths';
import { readTool } from './read';
import { type ToolDefinition, ToolError } from './tool';
import { writeTool } from './write';

export const TOOLS: readonly ToolDefinition[] = [readTool, writeTool, editTool, bashTool, globTool, grepTool] as ToolDefinition[];

export function findTool(name: string, allowedTools: readonly string[]): ToolDefinition | undefined {
  return allowedTools.includes(name) ? TOOLS.find((tool) => tool.name === name) : undefined;
}

/** The `tools` parameter of a Messages API request; `input_schema` comes from the zod schema. */
export function apiToolDefinitions(allowedTools: readonly string[]): Anthropic.Tool[] {
  return TOOLS.filter((tool) => allowedTools.includes(tool.name)).map((tool) => {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
    return {
      name: tool.name,
      description: tool.description,
      input_schema: schema as Anthropic.Tool.InputSchema,
    };
  });
}

export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

type Validation = { ok: true; tool: ToolDefinition; input: unknown } | { ok: false; errorText: string };

/** Validates a `tool_use` block against the tool's schema. Pure apart from reading the registry. */
export function validateToolUse(name: string, input: unknown, allowedTools: readonly string[]): Validation {
  const tool = findTool(name, allowedTools);
  if (!tool) {
    const available = TOOLS.filter((candidate) => allowedTools.includes(candidate.name)).map((candidate) => candidate.name);
    return {
      ok: false,
      errorText: toolUseError(`InputValidationError: No such tool available: ${name}. Available tools: ${available.join(', ')}`),
    };
  }
  const parsed = tool.schema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const field = issue.path.join('.') || '(input)';
      if (issue.code === 'unrecognized_keys') return `- unexpected parameter(s): ${issue.keys.join(', ')}`;
      if (issue.code === 'invalid_type' && issue.message.includes('undefined')) return `- the required parameter \`${field}\` is missing`;
      return `- \`${field}\`: ${issue.message}`;
    });
    return {
      ok: false,
      errorText: toolUseError(`InputValidationError: ${name} failed due to the following issue(s):\n${problems.join('\n')}`),
    };
  }
  return { ok: true, tool, input: parsed.data };
}

/**
 * Decides, before anything runs, how each `tool_use` of a response will be handled: its
 * validation, whether it may run in parallel, its UI summary and the file it targets.
 * Runs in the model activity, so the workflow receives the plan as data and stays free of tool code.
 */
export function planToolUse(
  block: { id: string; name: string; input: unknown },
  workdir: string,
  allowedTools: readonly string[],
): PlannedToolUse {
  const validation = validateToolUse(block.name, block.input, allowedTools);
  if (!validation.ok) return { id: block.id, name: block.name, input: block.input, plan: { ok: false, errorText: validation.errorText } };
  const { tool, input } = validation;
  let filePath: string | undefined;
  const target = tool.targetPath?.(input);
  if (target !== undefined) {
    try {
      filePath = resolveInWorkdir(workdir, target);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      // Left to the tool, which reports it as an is_error result with the same message.
    }
  }
  const summary = tool.summarize(input);
  return {
    id: block.id,
    name: block.name,
    input: block.input,
    plan: {
      ok: true,
      concurrencySafe: tool.isConcurrencySafe(input),
      summary: filePath ? summary.replace(target!, displayPath(workdir, filePath)) : summary,
      ...(filePath ? { filePath } : {}),
    },
  };
}
