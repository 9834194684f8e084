/**
 * `durable-agent`: the client side of the five roles. `run` starts a session and follows it.
 *
 *   npx durable-agent run --workdir <dir> "<task>"
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { WORKFLOW_TYPE } from '../shared/contract';
import type { AgentInput } from '../shared/input';
import type { AgentWorker } from '../worker';
import type { Tracing } from '../telemetry/tracing';
import { UsageError } from './usage-error';

/*
 * Only what parsing the arguments needs is imported at load time: each command imports its own
 * modules when it runs (`import()` below), so `--help`, `status` and `list` never load the worker,
 * its activities, the model SDK or OpenTelemetry (seconds of start-up on a loaded machine).
 */

const USAGE = `Usage:
  durable-agent run --workdir <dir> [options] "<task>"   start a session and follow it
  durable-agent run --repo <url> [--ref <ref>] [options] "<task>"
                                                          the same in a fresh clone; the changes end on a branch
  durable-agent watch <workflow-id> [--json]              the session so far, then live until it ends
  durable-agent status <workflow-id> [--json]             turn, status, tokens, pending approvals
  durable-agent send <workflow-id> "<text>"               queue a message for the next turn
  durable-agent end <workflow-id>                         close an interactive session once it waits for input
  durable-agent interrupt <workflow-id>                   stop the model call or tools in flight
  durable-agent approve <workflow-id> <tool-use-id> [--deny] [--feedback "<text>"]
  durable-agent list [--status waiting_approval] [--limit N] [--json]
                                                          sessions, newest first
  durable-agent rewind <workflow-id> --turn N [--conversation-only] [--force]
                                                          take the session (and its files) back to turn N
  durable-agent fork <workflow-id> --turn N --workdir <new dir> ["<instruction>"] [--no-worker]
                                                          a new session from turn N, its files in <new dir>
  durable-agent diff <workflow-id> [--turn N | --from N --to M] [--stat]
                                                          what the session changed (default: start to now)
  durable-agent move <workflow-id> --host <host id> [--workdir <dir>]
                                                          a session waiting for its lost host goes on on another
  durable-agent store-prompt <file | ->                   store a long prompt (for the Temporal CLI, schedules):
                                                          prints the promptRef to start a session with
  durable-agent temporal <args>…                          the Temporal CLI (installed here when not on PATH), e.g.
                                                          durable-agent temporal workflow show --workflow-id <id>
  durable-agent codec-server [--port 8081] [--host 127.0.0.1] [--namespace <ns>]… [--insecure-no-auth]
                                                          decrypts payloads for the Temporal UI and CLI (AGENT_ENCRYPTION_KEY)
                                                          for the token in AGENT_CODEC_AUTH (or, insecure, for anyone on loopback)

Options for run:
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
  --permission-mode <m>    auto (default) or ask: Write, Edit and Bash wait for durable-agent approve
  --token-budget <n>       Keep working until n output tokens are used
  --json                   NDJSON events on stdout (see README, "Events") instead of text
  --verbose                Show the worker's logs on stderr too (they always go to ~/.durable-agent/logs/)

Run ends with the session's diffstat. Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, AGENT_TASK_QUEUE, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, AGENT_MODEL, AGENT_STORE (see README).`;

export async function main(argv: string[], environment: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  try {
    if (command === 'run') return await runCommand(rest, environment);
    if (command === 'fork')
      return await (await import('./workspace-commands')).forkCommand(rest, environment, startAndFollow);
    if (command === 'temporal') return await (await import('./temporal-command')).temporalCommand(rest, environment);
    if (command === 'store-prompt') return await (await import('./big-prompt')).storePromptCommand(rest, environment);
    if (command === 'codec-server') return await (await import('./codec-server')).codecServerCommand(rest, environment);
    return await (await import('./session-commands')).sessionCommand(command, rest, environment);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(
        error.showUsage ? `durable-agent: ${error.message}\n\n${USAGE}` : `durable-agent: ${error.message}`,
      );
      return 2;
    }
    console.error(`durable-agent: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

interface RunArguments {
  input: AgentInput;
  workflowId?: string;
  startWorker: boolean;
  json: boolean;
  verbose: boolean;
}

function parseRunArguments(args: string[]): RunArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
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
        json: { type: 'boolean' },
        verbose: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (!values.workdir === !values.repo) throw new UsageError('give --workdir <dir> or --repo <url>');
  if (values.ref && !values.repo) throw new UsageError('--ref goes with --repo');
  if (positionals.length === 0)
    throw new UsageError('the task is required, e.g. durable-agent run --workdir . "Fix the failing test"');
  const integer = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number, not ${value}`);
    return Number(value);
  };
  const workdir = values.workdir ? resolve(values.workdir) : undefined;
  if (workdir && (!existsSync(workdir) || !statSync(workdir).isDirectory()))
    throw new UsageError(`--workdir ${workdir} is not a directory`);
  const input: AgentInput = {
    prompt: positionals.join(' '),
    ...(workdir ? { workdir } : { repo: { url: values.repo!, ...(values.ref ? { ref: values.ref } : {}) } }),
    ...(values.model ? { model: values.model } : {}),
    ...(values['max-turns'] ? { maxTurns: integer('max-turns', values['max-turns']) } : {}),
    ...(values['max-output-tokens']
      ? { maxOutputTokens: integer('max-output-tokens', values['max-output-tokens']) }
      : {}),
    ...(values['system-prompt'] ? { systemPrompt: values['system-prompt'] } : {}),
    ...(values.interactive ? { interactive: true } : {}),
    ...(values['permission-mode'] ? { permissionMode: values['permission-mode'] as 'auto' | 'ask' } : {}),
    ...(values['token-budget'] ? { tokenBudget: integer('token-budget', values['token-budget']) } : {}),
    ...(values['allowed-tools']
      ? { allowedTools: values['allowed-tools'].split(',').map((name) => name.trim()) as AgentInput['allowedTools'] }
      : {}),
  };
  return {
    input,
    workflowId: values['workflow-id'],
    startWorker: !values['no-worker'],
    json: values.json === true,
    verbose: values.verbose === true,
  };
}

async function runCommand(args: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  const { input, workflowId, startWorker, json, verbose } = parseRunArguments(args);
  // The input's schema (zod) is loaded only by a command that starts a session.
  // A prompt over the inline limit is fine here: it is stored, and passed by reference, once the store is open.
  const check = (await import('../shared/input')).checkAgentInput(input, { inlinePromptLimit: false });
  if (!check.ok) throw new UsageError(check.message);
  return startAndFollow(environment, { startWorker, workflowId, json, verbose }, async () => ({ input }));
}

/**
 * Starts a session and follows it to its end: with a worker of its own here (and a local dev
 * server when none answers) unless `startWorker` is false. `prepare` builds the input once the
 * client is connected (a fork reads its original first).
 */
export async function startAndFollow(
  environment: NodeJS.ProcessEnv,
  options: { startWorker: boolean; workflowId?: string; json?: boolean; verbose?: boolean },
  prepare: (client: Client) => Promise<{ input: AgentInput; workflowId?: string }>,
): Promise<number> {
  const { hasApiCredentials, MISSING_API_KEY_MESSAGE, workerConfigFromEnvironment } = await import('../worker-config');
  const config = workerConfigFromEnvironment(environment);
  // Checked before anything starts: without a key the session could only fail later.
  if (options.startWorker && !hasApiCredentials(config)) throw new Error(MISSING_API_KEY_MESSAGE);

  const { Client, Connection } = await import('@temporalio/client');
  const { NativeConnection, Runtime } = await import('@temporalio/worker');
  const { ensureTemporal, workflowUrl } = await import('./local-temporal');
  const { connectionOptions } = await import('../temporal/temporal-connection');
  const { openStore } = await import('../store/open-store');
  const { agentDataConverter } = await import('../encryption/data-converter');
  const { followSession } = await import('./follow');
  const { withLongPromptStored } = await import('./big-prompt');
  const { staticSummaryOf } = await import('./static-summary');
  // Worker and SDK logs go to a file: the terminal shows the session, not attempts' stack traces.
  const log = (await import('./log-file')).openCliLog(environment, options.verbose === true);
  Runtime.install({ logger: log.logger });
  // With --json, stdout is NDJSON only: what people read goes to stderr.
  const say = options.json ? (line: string) => console.error(line) : (line: string) => console.log(line);
  const temporal = await ensureTemporal(environment, (line) => console.error(line));
  if (temporal.started) console.error(temporal.started);
  // A local server found or started here is plaintext: TLS settings are for a configured address.
  if (config.address !== temporal.address) config.connection = {};
  config.address = temporal.address;

  let worker: AgentWorker | undefined;
  let workerRun: Promise<void> | undefined;
  let nativeConnection: NativeConnection | undefined;
  let tracing: Tracing | undefined;
  if (options.startWorker) {
    nativeConnection = await NativeConnection.connect(connectionOptions(config.address, config.connection));
    // OTEL_EXPORTER_OTLP_ENDPOINT traces the embedded worker as it does `npm run worker`.
    tracing = (await import('../telemetry/tracing')).setUpTracing(environment);
    worker = await (
      await import('../worker')
    ).createWorker(config, { connection: nativeConnection, ...(tracing ? { tracing } : {}) });
    workerRun = worker.run();
  }
  const connection = await Connection.connect(connectionOptions(config.address, config.connection));
  const store = await openStore(config.store, config.encryption);
  let exitCode = 1;
  let link: string | undefined;
  try {
    const client = new Client({
      connection,
      namespace: config.namespace,
      dataConverter: agentDataConverter(store, config.encryption),
    });
    const prepared = await prepare(client);
    const input = await withLongPromptStored(prepared.input, store.content);
    const workflowId =
      options.workflowId ?? prepared.workflowId ?? `agent-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const start = async () => {
      const staticSummary = staticSummaryOf(prepared.input.prompt);
      await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: config.taskQueue,
        workflowId,
        args: [input],
        ...(staticSummary ? { staticSummary } : {}),
      });
      link = workflowUrl(temporal.uiUrl, config.namespace, workflowId);
      say(
        `Started workflow ${workflowId} on task queue ${config.taskQueue}${link ? `\nTemporal UI: ${link}` : ''}${worker ? `\nWorker logs: ${log.path}` : ''}`,
      );
    };
    exitCode = await followSession(client, workflowId, { store, json: options.json === true, start });
  } finally {
    if (link) say(`Temporal UI: ${link}`);
    worker?.shutdown();
    await workerRun?.catch(() => undefined);
    await nativeConnection?.close();
    await connection.close();
    await store.close();
    await temporal.shutdown?.();
    await tracing?.shutdown();
    await log.close();
  }
  return exitCode;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
