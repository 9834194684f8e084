/** `durable-agent run`: starts a session (with a worker of its own here, by default) and follows it. */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AgentInput } from '../../shared/input';
import { parseOptions, wholeNumberOption } from '../arguments';
import type { Command } from '../command';
import { UsageError } from '../usage-error';

const RUN_OPTIONS = {
  workdir: { type: 'string' },
  repo: { type: 'string' },
  ref: { type: 'string' },
  model: { type: 'string' },
  'max-turns': { type: 'string' },
  'max-output-tokens': { type: 'string' },
  'system-prompt': { type: 'string' },
  'allowed-tools': { type: 'string' },
  'workflow-id': { type: 'string' },
  'no-worker': { type: 'boolean' },
  interactive: { type: 'boolean' },
  'permission-mode': { type: 'string' },
  'token-budget': { type: 'string' },
  'max-budget-usd': { type: 'string' },
  'json-schema': { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
} as const;

type RunValues = ReturnType<typeof parseOptions<typeof RUN_OPTIONS>>['values'];

export interface RunArguments {
  input: AgentInput;
  workflowId?: string;
  startWorker: boolean;
  json: boolean;
  verbose: boolean;
}

/** The command line as a session's input and how to follow it; wrong arguments throw a UsageError. */
export function parseRunArguments(args: string[]): RunArguments {
  const { values, positionals } = parseOptions(args, RUN_OPTIONS);
  if (!values.workdir === !values.repo) throw new UsageError('give --workdir <dir> or --repo <url>');
  if (values.ref && !values.repo) throw new UsageError('--ref goes with --repo');
  if (positionals.length === 0)
    throw new UsageError('the task is required, e.g. durable-agent run --workdir . "Fix the failing test"');
  const workdir = values.workdir ? resolve(values.workdir) : undefined;
  if (workdir && (!existsSync(workdir) || !statSync(workdir).isDirectory()))
    throw new UsageError(`--workdir ${workdir} is not a directory`);
  const input: AgentInput = {
    prompt: positionals.join(' '),
    ...(workdir ? { workdir } : { repo: { url: values.repo!, ...(values.ref ? { ref: values.ref } : {}) } }),
    ...sessionSettings(values),
  };
  return {
    input,
    workflowId: values['workflow-id'],
    startWorker: !values['no-worker'],
    json: values.json === true,
    verbose: values.verbose === true,
  };
}

/** The input's fields from the options that set them; an option not given leaves its field out. */
function sessionSettings(values: RunValues): Partial<AgentInput> {
  const number = (name: 'max-turns' | 'max-output-tokens' | 'token-budget') =>
    values[name] ? wholeNumberOption(name, values[name]) : undefined;
  const settings: Partial<AgentInput> = {
    model: values.model || undefined,
    maxTurns: number('max-turns'),
    maxOutputTokens: number('max-output-tokens'),
    systemPrompt: values['system-prompt'] || undefined,
    interactive: values.interactive || undefined,
    permissionMode: (values['permission-mode'] || undefined) as AgentInput['permissionMode'],
    tokenBudget: number('token-budget'),
    maxBudgetUsd: values['max-budget-usd'] ? usdOption(values['max-budget-usd']) : undefined,
    allowedTools: values['allowed-tools']
      ? (values['allowed-tools'].split(',').map((name) => name.trim()) as AgentInput['allowedTools'])
      : undefined,
    outputFormat: values['json-schema']
      ? { type: 'json_schema', schema: jsonSchemaOption(values['json-schema']) }
      : undefined,
  };
  // Absent, not undefined: the input is compared, stored and shown as given.
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** `--max-budget-usd 2.5`: a positive number of dollars. */
function usdOption(value: string): number {
  const usd = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(usd > 0))
    throw new UsageError(`--max-budget-usd takes a positive number of dollars, not ${value}`);
  return usd;
}

/** `--json-schema` as Claude Code's CLI takes it: the schema itself, as JSON. */
function jsonSchemaOption(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UsageError('--json-schema takes a JSON Schema as JSON, e.g. \'{"type":"object","properties":{…}}\'');
  }
}

export const runCommand: Command = {
  name: 'run',
  usage: `  durable-agent run --workdir <dir> [options] "<task>"   start a session and follow it
  durable-agent run --repo <url> [--ref <ref>] [options] "<task>"
                                                          the same in a fresh clone; the changes end on a branch`,
  details: `Options for run:
  --workdir <dir>          Repository the agent works in (this, or --repo)
  --repo <url>             Repository to clone on the worker host (its changes go to branch durable-agent/<id>)
  --ref <ref>              Branch, tag or commit of --repo to start from (default: its default branch)
  --model <name>           Model (default: AGENT_MODEL, or the built-in default)
  --max-turns <n>          Stop after n model calls (default 500)
  --max-output-tokens <n>  Output limit per model call (default 8192)
  --system-prompt <text>   Appended to the built-in system prompt
  --allowed-tools <list>   Comma-separated, e.g. Read,Grep,Glob
  --workflow-id <id>       Workflow id (default: agent-<time>)
  --no-worker              Do not start a worker here (workers run elsewhere)
  --interactive            Wait for messages (durable-agent send) after each answer; close it with
                           durable-agent end <workflow-id>
  --permission-mode <m>    default, acceptEdits, plan, bypassPermissions or dontAsk (Claude Code's modes; auto,
                           the default, is bypassPermissions; ask is default): what waits for durable-agent approve
  --token-budget <n>       Keep working until n output tokens are used
  --max-budget-usd <usd>   Stop (max_budget) once the session, sub-agents included, spent this many dollars
  --json-schema <schema>   The answer as JSON valid against this JSON Schema (Claude Code's flag): the result's
                           structuredOutput
  --json                   NDJSON events on stdout (see README, "Events") instead of text
  --verbose                Show the worker's logs on stderr too (they always go to ~/.durable-agent/logs/)

Run ends with the session's diffstat. Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, AGENT_TASK_QUEUE, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, AGENT_MODEL, AGENT_STORE (see README).`,
  async run(args, environment) {
    const { input, workflowId, startWorker, json, verbose } = parseRunArguments(args);
    // The input's schema (zod) is loaded only by a command that starts a session.
    // A prompt over the inline limit is fine here: it is stored, and passed by reference, once the store is open.
    const check = (await import('../../shared/input')).checkAgentInput(input, { inlinePromptLimit: false });
    if (!check.ok) throw new UsageError(check.message);
    const { startAndFollow } = await import('../start-and-follow');
    return startAndFollow(environment, { startWorker, workflowId, json, verbose }, async () => ({ input }));
  },
};
