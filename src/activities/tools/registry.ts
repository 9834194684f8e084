import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { PlannedToolUse, ToolRules } from '../../shared/activity-io';
import { toolUseError } from '../../shared/conversation';
import { canonicalToolName, listsTool, namesOfTool, type ToolAlias, type ToolName } from '../../shared/tool-names';
import { bashTool } from './bash';
import { editTool } from './edit';
import { globTool } from './glob';
import { grepTool } from './grep';
import { displayPath, resolveInWorkdir } from './paths';
import { readTool } from './read';
import { type ToolDefinition, ToolError, type ToolOffer } from './tool';
import { writeTool } from './write';
import { agentTool } from './agent';
import { notebookEditTool } from './notebook-edit';
import { skillTool } from './skill';
import { todoWriteTool } from './todo-write';
import { listMcpResourcesTool, readMcpResourceTool } from './mcp-resource-tools';
import { webFetchTool } from './web-fetch';
import { webSearchTool } from './web-search';
import { enterPlanModeTool } from './enter-plan-mode';
import { exitPlanModeTool } from './exit-plan-mode';
import { askUserQuestionTool } from './ask-user-question';
import { taskOutputTool } from './task-output';
import { taskStopTool } from './task-stop';

/** The tools offered to the model: one line each. The compiler checks them against TOOL_NAMES. */
const BUILT_IN_TOOLS = {
  Read: readTool,
  Write: writeTool,
  Edit: editTool,
  Bash: bashTool,
  Glob: globTool,
  Grep: grepTool,
  TodoWrite: todoWriteTool,
  Agent: agentTool,
  ListMcpResourcesTool: listMcpResourcesTool,
  ReadMcpResourceTool: readMcpResourceTool,
  WebFetch: webFetchTool,
  WebSearch: webSearchTool,
  NotebookEdit: notebookEditTool,
  Skill: skillTool,
  EnterPlanMode: enterPlanModeTool,
  ExitPlanMode: exitPlanModeTool,
  AskUserQuestion: askUserQuestionTool,
  TaskOutput: taskOutputTool,
  TaskStop: taskStopTool,
} satisfies { [Name in Exclude<ToolName, ToolAlias>]: ToolDefinition & { name: Name } };

type Validation = { ok: true; tool: ToolDefinition; input: unknown } | { ok: false; errorText: string };

/** Every question the activities ask about tools, answered from the tools' own declarations. */
export class ToolRegistry {
  /** Each tool's API definition, made once: converting a zod schema to JSON Schema costs more than a model call's own work. */
  private readonly definitions = new Map<ToolDefinition, Readonly<Anthropic.Tool>>();

  constructor(readonly tools: readonly ToolDefinition[]) {}

  /**
   * A tool by any of its names (`Task` finds Agent); with `allowedTools`, only when the session
   * may use it, by any of its names.
   */
  find(name: string, allowedTools?: readonly string[]): ToolDefinition | undefined {
    if (allowedTools && !listsTool(allowedTools, name)) return undefined;
    const canonical = canonicalToolName(name);
    return this.tools.find((tool) => tool.name === canonical);
  }

  /** Of `allowedTools`, those offered to this session: conditional tools only when their condition holds. */
  offeredNames(allowedTools: readonly string[], offer: ToolOffer): string[] {
    return allowedTools.filter((name) => {
      const tool = this.find(name);
      return !tool?.offered || tool.offered(offer);
    });
  }

  /** Of `allowedTools`, those offered whatever the session has (the system prompt's list names these). */
  alwaysOffered(allowedTools: readonly string[]): string[] {
    return this.offeredNames(allowedTools, { mcpResources: false, webFetch: false, webSearch: false, skills: false });
  }

  /** The `tools` parameter of a Messages API request (each tool once, by its own name); `input_schema` comes from the zod schema. */
  apiDefinitions(allowedTools: readonly string[] = this.tools.map((tool) => tool.name)): Anthropic.Tool[] {
    return this.tools.filter((tool) => listsTool(allowedTools, tool.name)).map((tool) => this.definitionOf(tool));
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
        .filter((candidate) => listsTool(allowedTools, candidate.name))
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
        plan: { ok: false, errorText: validation.errorText, rules: known ? fixedRules(known, block.name) : {} },
      };
    }
    const { tool, input } = validation;
    const refusal = tool.refusal?.(input);
    if (refusal)
      return {
        id: block.id,
        name: block.name,
        input: block.input,
        plan: { ok: false, errorText: toolUseError(refusal), rules: fixedRules(tool, block.name) },
      };
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
    // A call by an old name (`Task`) is summarised under that name, as before the rename.
    const own = tool.summarize(input);
    const summary =
      block.name !== tool.name && own.startsWith(tool.name) ? block.name + own.slice(tool.name.length) : own;
    return {
      id: block.id,
      name: block.name,
      input: block.input,
      plan: {
        ok: true,
        concurrencySafe: tool.isConcurrencySafe(input),
        summary: filePath ? summary.replace(target!, displayPath(workdir, filePath)) : summary,
        ...(filePath ? { filePath } : {}),
        rules: {
          ...(await rulesOf(tool, block.name, input, { workdir, ...(filePath ? { filePath } : {}) })),
          ...permissionFacts(tool, input, workdir, filePath),
        },
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

/** What permission rules match of a call: its path, its specifier, the tool's other names (only what is set). */
function permissionFacts(tool: ToolDefinition, input: unknown, workdir: string, filePath?: string): ToolRules {
  let rulePath = filePath;
  const searched = filePath === undefined ? tool.rulePath?.(input) : undefined;
  if (searched !== undefined) {
    try {
      rulePath = resolveInWorkdir(workdir, searched);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      // Outside the workdir: the tool refuses the call itself.
    }
  }
  const ruleSpecifier = tool.ruleSpecifier?.(input);
  return {
    ...(rulePath !== undefined ? { rulePath } : {}),
    ...(ruleSpecifier !== undefined ? { ruleSpecifier } : {}),
  };
}

/** The rules that do not depend on the input. */
function fixedRules(tool: ToolDefinition, calledAs: string): ToolRules {
  return {
    ...(tool.editsFiles ? { editsFiles: true as const } : {}),
    ...(tool.ruleNames?.length ? { ruleNames: [...tool.ruleNames] } : {}),
    ...(tool.needsApproval ? { needsApproval: true as const } : {}),
    ...(tool.cancelsLaterCallsOnError ? { cancelsLaterCallsOnError: true as const } : {}),
    ...(tool.readsFile ? { readsFile: true as const } : {}),
    ...(tool.changesFiles ? { changesFiles: true as const } : {}),
    ...(tool.runsAsSubAgent ? { subAgent: true as const } : {}),
    ...(tool.labelsItself ? { labelsItself: true as const } : {}),
    ...aliasesOf(calledAs),
    ...(tool.readsMcpServers ? { readsMcpServers: true as const } : {}),
    ...(tool.loadsSkill ? { loadsSkill: true as const } : {}),
    ...(tool.sessionControl ? { sessionControl: tool.sessionControl } : {}),
  };
}

/** The called tool's other names, for hooks' matchers and rules (only set for tools that have some). */
function aliasesOf(calledAs: string): Pick<ToolRules, 'aliases'> {
  const others = namesOfTool(calledAs).filter((name) => name !== calledAs);
  return others.length ? { aliases: others } : {};
}

/** A valid call's rules; only what is set, to keep history small. The subject only matters to approval. */
async function rulesOf(
  tool: ToolDefinition,
  calledAs: string,
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
    ...aliasesOf(calledAs),
    ...(tool.editsFiles ? { editsFiles: true as const } : {}),
    ...(tool.ruleNames?.length ? { ruleNames: [...tool.ruleNames] } : {}),
    ...(tool.readsMcpServers ? { readsMcpServers: true as const } : {}),
    ...(tool.loadsSkill ? { loadsSkill: true as const } : {}),
    ...(tool.sessionControl ? { sessionControl: tool.sessionControl } : {}),
    ...backgroundRule(tool, input),
  };
}

/** How the workflow treats the call as a background command, if it does. */
function backgroundRule(tool: ToolDefinition, input: unknown): Pick<ToolRules, 'background'> {
  const rule = tool.background?.(input);
  return rule ? { background: rule } : {};
}

/** The tools of every session. */
export const TOOLS = new ToolRegistry(Object.values(BUILT_IN_TOOLS));
