/**
 * The command table: the usage text built from it is the one users and scripts know, byte for
 * byte, and loading it loads no SDK (each command imports its own modules when it runs).
 */
import { execFileSync } from 'node:child_process';
import { COMMANDS, USAGE } from '../../../src/cli/main';
import { PROJECT_ROOT } from '../../support/paths';
import { cli } from './cli-output';

/** The usage as it was before the table, kept here verbatim: a change to it is a change to a contract. */
const EXPECTED_USAGE = `Usage:
  durable-agent run --workdir <dir> [options] "<task>"   start a session and follow it
  durable-agent run --repo <url> [--ref <ref>] [options] "<task>"
                                                          the same in a fresh clone; the changes end on a branch
  durable-agent watch <workflow-id> [--json]              the session so far, then live until it ends
  durable-agent status <workflow-id> [--json]             turn, status, tokens, pending approvals
  durable-agent send <workflow-id> "<text>"               queue a message for the next turn
  durable-agent end <workflow-id>                         close an interactive session once it waits for input
  durable-agent interrupt <workflow-id>                   stop the model call or tools in flight
  durable-agent approve <workflow-id> <tool-use-id> [--deny] [--feedback "<text>"] [--mode <mode after a plan>]
  durable-agent answer <workflow-id> <tool-use-id> --answer '<header or question>=<answer>' … | --json '{…}'
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
  --permission-mode <m>    default, acceptEdits, plan, bypassPermissions or dontAsk (Claude Code's modes; auto,
                           the default, is bypassPermissions; ask is default): what waits for durable-agent approve
  --token-budget <n>       Keep working until n output tokens are used
  --max-budget-usd <usd>   Stop (max_budget) once the session, sub-agents included, spent this many dollars
  --json-schema <schema>   The answer as JSON valid against this JSON Schema (Claude Code's flag): the result's
                           structuredOutput
  --json                   NDJSON events on stdout (see README, "Events") instead of text
  --verbose                Show the worker's logs on stderr too (they always go to ~/.durable-agent/logs/)

Run ends with the session's diffstat. Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, AGENT_TASK_QUEUE, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, AGENT_MODEL, AGENT_STORE (see README).`;

test('the usage built from the table is the usage text, byte for byte', () => {
  expect(USAGE).toBe(EXPECTED_USAGE);
});

test('every command is in the table once, in the order of the usage', () => {
  const names = COMMANDS.map((command) => command.name);
  expect(names).toEqual([
    'run',
    'watch',
    'status',
    'send',
    'end',
    'interrupt',
    'approve',
    'answer',
    'list',
    'rewind',
    'fork',
    'diff',
    'move',
    'store-prompt',
    'temporal',
    'codec-server',
  ]);
  for (const command of COMMANDS) expect(command.usage).toMatch(new RegExp(`^  durable-agent ${command.name} `));
});

test('--help, -h and help print the usage on stdout and exit 0; no command exits 2', async () => {
  for (const flag of ['--help', '-h', 'help'])
    expect(await cli([flag])).toEqual({ code: 0, stdout: `${EXPECTED_USAGE}\n`, stderr: '' });
  expect(await cli([])).toEqual({ code: 2, stdout: `${EXPECTED_USAGE}\n`, stderr: '' });
});

test('an unknown command is a usage error: the message, the usage, exit 2', async () => {
  expect(await cli(['bogus'])).toEqual({
    code: 2,
    stdout: '',
    stderr: `durable-agent: Unknown command: bogus\n\n${EXPECTED_USAGE}\n`,
  });
});

test('loading the table loads no SDK, no Temporal client, no worker', () => {
  const loaded = execFileSync(
    process.execPath,
    ['--import', 'tsx', '-e', "require('./src/cli/main'); console.log(JSON.stringify(Object.keys(require.cache)))"],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  const modules = (JSON.parse(loaded) as string[]).filter(
    (path) => !path.includes('node_modules/tsx/') && !path.includes('node_modules/esbuild/'),
  );
  expect(modules.filter((path) => path.includes('node_modules'))).toEqual([]);
  expect(modules.every((path) => path.includes('/src/cli/'))).toBe(true);
}, 30_000);
