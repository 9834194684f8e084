import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { PlannedToolUse, ToolRules } from '../../shared/activity-io';
import { toolUseError } from '../../shared/conversation';
import type { ToolName } from '../../shared/tool-names';
import { bashTool } from './bash';
import { editTool } from './edit';
import { globTool } from './glob';
import { grepTool } from './grep';
import { displayPath, resolveInWorkdir } from './paths';
import { readTool } from './read';
import { type ToolDefinition, ToolError } from './tool';
import { writeTool } from './write';
import { taskTool } from './task';
import { todoWriteTool } from './todo-write';
import { enterPlanModeTool } from './enter-plan-mode';
import { exitPlanModeTool } from './exit-plan-mode';
import { askUserQuestionTool } from './ask-user-question';

/** The tools offered to the model: one line each. The compiler checks them against TOOL_NAMES. */
const BUILT_IN_TOOLS = {
  Read: readTool,
  Write: writeTool,
  Edit: editTool,
  Bash: bashTool,
  Glob: globTool,
  Grep: grepTool,
  TodoWrite: todoWriteTool,
  Task: taskTool,
  EnterPlanMode: enterPlanModeTool,
  ExitPlanMode: exitPlanModeTool,
  AskUserQuestion: askUserQuestionTool,
} satisfies { [Name in ToolName]: ToolDefinition & { name: Name } };

type Validation = { ok: true; tool: ToolDefinition; input: unknown } | { ok: false; errorText: string };

/** Every question the activities ask about tools, answered from the tools' own declarations. */
export class ToolRegistry {
  /** Each tool's API definition, made once: converting a zod schema to JSON Schema costs more than a model call's own work. */
  private readonly definitions = new Map<ToolDefinition, Readonly<Anthropic.Tool>>();

  constructor(readonly tools: readonly ToolDefinition[]) {}

  /** A tool by name; with `allowedTools`, only when the session may use it. */
  find(name: string, allowedTools?: readonly string[]): ToolDefinition | undefined {
    if (allowedTools && !allowedTools.includes(name)) return undefined;
    return this.tools.find((tool) => tool.name === name);
  }

  /** The `tools` parameter of a Messages API request; `input_schema` comes from the zod schema. */
  apiDefinitions(allowedTools: readonly string[] = this.tools.map((tool) => tool.name)): Anthropic.Tool[] {
    return this.tools.filter((tool) => allowedTools.includes(tool.name)).map((tool) => this.definitionOf(tool));
  }

  private definitionOf(tool: ToolDefinition): Anthropic.Tool {
    let definition = this.definitions.get(tool);
    if (!definition) {
      const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
      definition = {
        name: tool.name,
        description: tool.description,
        input_schema: schema as Anthropic.Tool.InputSchema,
      };
      this.definitions.set(tool, definition);
    }
    return definition;
  }

  /** Validates a `tool_use` block against the tool's schema. */
  validate(name: string, input: unknown, allowedTools: readonly string[]): Validation {
    const tool = this.find(name, allowedTools);
    if (!tool) {
      const available = this.tools
        .filter((candidate) => allowedTools.includes(candidate.name))
        .map((candidate) => candidate.name);
      return {
        ok: false,
        errorText: toolUseError(
          `InputValidationError: No such tool available: ${name}. Available tools: ${available.join(', ')}`,
        ),
      };
    }
    const parsed = tool.schema.safeParse(input);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => {
        const field = issue.path.join('.') || '(input)';
        if (issue.code === 'unrecognized_keys') return `- unexpected parameter(s): ${issue.keys.join(', ')}`;
        if (issue.code === 'invalid_type' && issue.message.includes('undefined'))
          return `- the required parameter \`${field}\` is missing`;
        return `- \`${field}\`: ${issue.message}`;
      });
      return {
        ok: false,
        errorText: toolUseError(
          `InputValidationError: ${name} failed due to the following issue(s):\n${problems.join('\n')}`,
        ),
      };
    }
    return { ok: true, tool, input: parsed.data };
  }

  /**
   * Decides, before anything runs, how each `tool_use` of a response will be handled: its
   * validation, its rules, its UI summary and the file it targets. Runs in the model activity,
   * so the workflow receives the plan as data and stays free of tool code.
   */
  async plan(
    block: { id: string; name: string; input: unknown },
    workdir: string,
    allowedTools: readonly string[],
  ): Promise<PlannedToolUse> {
    const validation = this.validate(block.name, block.input, allowedTools);
    if (!validation.ok) {
      // A known tool's fixed rules hold even for invalid input (a failed Bash call still cancels).
      const known = this.find(block.name);
      return {
        id: block.id,
        name: block.name,
        input: block.input,
        plan: { ok: false, errorText: validation.errorText, rules: known ? fixedRules(known) : {} },
      };
    }
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
        rules: await rulesOf(tool, input, { workdir, ...(filePath ? { filePath } : {}) }),
      },
    };
  }

  /** Whether microcompact may clear an old result of this tool. */
  resultsClearable(name: string): boolean {
    return this.find(name)?.resultsClearable ?? false;
  }

  /** The subject of a call, for notes that list what was done (empty when the input is invalid). */
  subjectOf(name: string, input: unknown): string {
    const tool = this.find(name);
    const parsed = tool?.schema.safeParse(input);
    return tool && parsed?.success ? tool.subject(parsed.data) : '';
  }
}

/** The rules that do not depend on the input. */
function fixedRules(tool: ToolDefinition): ToolRules {
  return {
    ...(tool.needsApproval ? { needsApproval: true as const } : {}),
    ...(tool.cancelsLaterCallsOnError ? { cancelsLaterCallsOnError: true as const } : {}),
    ...(tool.readsFile ? { readsFile: true as const } : {}),
    ...(tool.changesFiles ? { changesFiles: true as const } : {}),
    ...(tool.runsAsSubAgent ? { subAgent: true as const } : {}),
    ...(tool.labelsItself ? { labelsItself: true as const } : {}),
    ...(tool.sessionControl ? { sessionControl: tool.sessionControl } : {}),
  };
}

/** A valid call's rules; only what is set, to keep history small. The subject only matters to approval. */
async function rulesOf(
  tool: ToolDefinition,
  input: unknown,
  target: { workdir: string; filePath?: string },
): Promise<ToolRules> {
  const timeoutMs = tool.activityTimeoutMs?.(input);
  return {
    ...(tool.needsApproval
      ? { needsApproval: true as const, subject: tool.subject(input), ...(await tool.approvalFacts?.(input, target)) }
      : {}),
    ...(tool.cancelsLaterCallsOnError ? { cancelsLaterCallsOnError: true as const } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(tool.readsFile ? { readsFile: true as const } : {}),
    ...(tool.changesFiles ? { changesFiles: true as const } : {}),
    ...(tool.runsAsSubAgent ? { subAgent: true as const } : {}),
    ...(tool.labelsItself ? { labelsItself: true as const } : {}),
    ...(tool.sessionControl ? { sessionControl: tool.sessionControl } : {}),
  };
}

/** The tools of every session. */
export const TOOLS = new ToolRegistry(Object.values(BUILT_IN_TOOLS));
