import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { RunToolInput, RunToolOutput } from '../../shared/activity-io';
import { toolUseError } from '../../shared/conversation';
import { TOOL_RESULT_MAX_CHARS, TOOL_RESULT_PREVIEW_CHARS } from '../../shared/limits';
import { CallProgress, whileHeartbeating } from '../heartbeat';
import { type ContentStore, storeText } from '../../store/content-store';
import { withFailureLine } from '../../shared/result-preview';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import type { EffectJournal } from '../../store/effect-journal';
import type { FileChange, TakenSnapshot } from '../../shared/workspace';
import { snapshotOver } from '../workspace/workspace-activities';
import { takeSnapshot } from '../../snapshots/snapshot';
import { WorkdirRefusal } from '../../workdir/workdir-refusal';
import { inWorkdir } from './paths';
import { TOOLS, type ToolRegistry } from './registry';
import { ToolError, type ToolOutput } from './tool';
import type { LiveChannel } from '../../live/live-channel';
import { LivePublisher } from '../../live/live-publisher';
import { type ToolProgress, trackToolProgress } from '../tool-progress';
import { inSpan } from '../../telemetry/spans';
import { nestedInstructions } from '../session/instructions';
import type { McpServers } from '../../shared/mcp';
import type { McpPool } from '../mcp/mcp-pool';
import { mcpResourceAccess } from '../mcp/mcp-resources';
import { type WebAccess, webAccessFor, type WebTools } from '../web/web-access';
import { loadSkills } from '../session/session-skills';

export interface ToolActivityDependencies {
  store: ContentStore;
  journal: EffectJournal;
  /** Where commands run (the worker's sandbox). */
  sandbox: CommandSandbox;
  tools?: ToolRegistry;
  /** Where progress of long calls goes to the session's watchers. */
  live?: LiveChannel;
  /** The worker's MCP connections: the resource tools read the session's servers through them. */
  mcpPool?: McpPool;
  /** The web tools' means (AGENT_WEB_FETCH=1): the small model and the sandbox's network rules. */
  web?: WebTools;
}

const INTERRUPTED_AFTER = 'Interrupted by the user while it ran; it had got this far:';

/**
 * Node's errors that say something about the call, not the machine (a missing file, permissions,
 * a symlink loop, a NUL byte or a string too long): retrying cannot change them, so they are
 * reported to the model. Others (EMFILE, EIO, ENOSPC…) may pass, and are retried.
 */
const ACTIONABLE_ERROR_CODES = new Set([
  'ENOENT',
  'EACCES',
  'EPERM',
  'EISDIR',
  'ENOTDIR',
  'EEXIST',
  'ENOTEMPTY',
  'EROFS',
  'ENAMETOOLONG',
  'EINVAL',
  'ELOOP',
  'ENXIO',
  'ENODEV',
  'EFBIG',
  'ETXTBSY',
  'ESPIPE',
  'EXDEV',
]);

export function isActionableError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && (ACTIONABLE_ERROR_CODES.has(code) || code.startsWith('ERR_'))) return true;
  // "Invalid string length": a result too large to become a string.
  return error instanceof RangeError;
}

/** The dependencies with the registry's default filled in. */
type ToolRunDeps = Omit<ToolActivityDependencies, 'tools'> & { tools: ToolRegistry };

/** A call whose tool exists and whose input its schema accepts. */
type ValidCall = Extract<ReturnType<ToolRegistry['validate']>, { ok: true }>;

export function createToolActivities({
  store,
  journal,
  sandbox,
  tools = TOOLS,
  live,
  mcpPool,
  web,
}: ToolActivityDependencies) {
  const deps: ToolRunDeps = {
    store,
    journal,
    sandbox,
    tools,
    live,
    ...(mcpPool ? { mcpPool } : {}),
    ...(web ? { web } : {}),
  };
  return {
    /**
     * One activity per `tool_use`. A tool's own failure is an `is_error` result for the model;
     * only infrastructure failures throw, so Temporal retries them.
     */
    runTool: (request: RunToolInput): Promise<RunToolOutput> => runTool(deps, request),
  };
}

async function runTool(deps: ToolRunDeps, request: RunToolInput): Promise<RunToolOutput> {
  const context = Context.current();
  const validation = deps.tools.validate(request.name, request.input, [request.name]); // allowedTools was enforced when planned
  let output: ToolOutput;
  let snapshot: TakenSnapshot | undefined;
  if (!validation.ok) {
    output = { text: validation.errorText, isError: true };
  } else {
    ({ output, snapshot } = await runValidCall(deps, request, validation, context));
  }
  return toolRunOutput(deps.store, request, validation.ok && validation.tool.readsFile, output, snapshot);
}

/** The call in a span, heartbeating with its details; then the turn's snapshot when it may have changed files. */
async function runValidCall(
  deps: ToolRunDeps,
  request: RunToolInput,
  validation: ValidCall,
  context: Context,
): Promise<{ output: ToolOutput; snapshot?: TakenSnapshot }> {
  const tool = validation.tool;
  // The command, the path, the pattern: what an operator looking at the pending call wants to see.
  const call = new CallProgress(request.name, `${request.name} ${tool.subject(validation.input)}`);
  const progress = trackToolProgress(LivePublisher.forActivity(deps.live), request.toolUseId, call);
  const attributes = {
    'durable_agent.tool.name': request.name,
    'durable_agent.tool.subject': tool.summarize(validation.input),
    'durable_agent.attempt': context.info.attempt,
  };
  const output = await inSpan('tool.call', attributes, (span) =>
    whileHeartbeating(() => executeTool(deps, request, validation, context, call, progress), call).then((done) => {
      span.setAttributes(toolResultAttributes(done));
      return done;
    }),
  );
  // Cancelled (an interrupt) but the tool got to the end: what it did stands (an Edit's change
  // landed, a command ran as far as its output shows), so the result says so rather than
  // claiming the call was stopped before it finished.
  if (context.cancellationSignal.aborted)
    return { output: { ...output, text: `${INTERRUPTED_AFTER}\n${output.text}` } };
  // The workspace as this call left it: the turn's snapshot, taken here rather than by an
  // activity of its own (calls that change files run one at a time, so it is consistent).
  if (validation.tool.changesFiles && request.snapshotRef) {
    // The call's details still: a heartbeat without them would blank what describe shows.
    const snapshot = await whileHeartbeating(
      () => snapshotOver(deps.store, request.workdir, request.snapshotRef!, context.cancellationSignal),
      call,
    );
    return { output, snapshot };
  }
  return { output };
}

/** The tool's own work. Its failures the model can act on become `is_error` results; the rest throw, to be retried. */
async function executeTool(
  { store, journal, sandbox, mcpPool, web }: ToolRunDeps,
  request: RunToolInput,
  validation: ValidCall,
  context: Context,
  call: CallProgress,
  progress: ToolProgress,
): Promise<ToolOutput> {
  try {
    return await validation.tool.execute(validation.input, {
      sessionId: request.sessionId,
      toolUseId: request.toolUseId,
      // A call made again once its lost host came back keeps the lost attempt's key (its journal entry).
      callKey: `${context.info.workflowExecution?.runId}/${request.resumed && !request.resumed.moved ? request.resumed.activityId : context.info.activityId}`,
      workdir: request.workdir,
      attempt: context.info.attempt + (request.resumed ? 1 : 0),
      ...(request.resumed?.moved ? { lostWithHost: true } : {}),
      knownFiles: new Map(request.fileStates.map((state) => [state.path, state.sha256])),
      journal,
      signal: context.cancellationSignal,
      sandbox,
      sessionSandbox: request.sandbox,
      approved: request.approved === true,
      onOutput: call.onOutput,
      ...(request.snapshotRef
        ? { changesSinceSnapshot: () => changesSince(store, request.workdir, request.snapshotRef!) }
        : {}),
      ...(request.mcpServers && mcpPool
        ? { mcp: resourceAccess(mcpPool, request, request.mcpServers, context.cancellationSignal) }
        : {}),
      ...webOf(web, request),
      ...(request.skillsRef
        ? { skills: { list: () => loadSkills(store, request.skillsRef!), body: (skill) => store.get(skill.bodyRef) } }
        : {}),
    });
  } catch (error) {
    if (context.cancellationSignal.aborted) throw new CancelledFailure('Tool call cancelled');
    if (error instanceof ToolError || error instanceof WorkdirRefusal)
      return { text: toolUseError(error.message), isError: true };
    if (isActionableError(error)) return { text: toolUseError((error as Error).message), isError: true };
    throw error;
  } finally {
    await progress.stop();
  }
}

/** The web as this session may reach it, for the web tools (none: the worker offers no web, or the session has no network). */
function webOf(web: WebTools | undefined, request: RunToolInput): { web?: WebAccess } {
  const access = web ? webAccessFor(web, request.sandbox) : undefined;
  return access ? { web: access } : {};
}

/** The session's MCP servers' resources, where the session's MCP tool calls reach them. */
function resourceAccess(pool: McpPool, request: RunToolInput, servers: McpServers, signal: AbortSignal) {
  const place = { workdir: request.workdir, ...(request.sandbox ? { sandbox: request.sandbox } : {}) };
  return mcpResourceAccess(pool, { sessionId: request.sessionId, servers, place }, signal);
}

/**
 * The result as the model gets it: the user's approval feedback, the result budget, the nested
 * instructions of a file read (`readsFile`: the call was of a tool that reads one), images stored.
 */
async function toolRunOutput(
  store: ContentStore,
  request: RunToolInput,
  readsFile: boolean,
  output: ToolOutput,
  snapshot: TakenSnapshot | undefined,
): Promise<RunToolOutput> {
  const withFeedback = request.approvalFeedback
    ? `${output.text}\n\nUser feedback on approval: ${request.approvalFeedback}`
    : output.text;
  const budgeted = await applyToolResultBudget(request, withFeedback);
  // A file read for the first time under a directory with its own AGENTS.md or CLAUDE.md: they follow the result (after its budget, so they are never cut to a preview).
  const nested =
    readsFile && output.fileState && !output.isError
      ? await nestedInstructions(request.workdir, output.fileState.path, request.instructionDirs ?? [])
      : undefined;
  const text = nested ? `${budgeted}\n\n${nested.reminder}` : budgeted;
  const media = await Promise.all(
    (output.media ?? []).map(async ({ base64, ...about }) => ({
      ...about,
      ref: await store.put(base64),
      bytes: Math.floor((base64.length * 3) / 4),
    })),
  );
  return {
    result: {
      toolUseId: request.toolUseId,
      isError: output.isError ?? false,
      content: withFailureLine(await storeText(store, text), text, output.isError ?? false),
      toolName: request.name,
      ...(media.length ? { media } : {}),
    },
    ...(output.fileState ? { fileState: output.fileState } : {}),
    ...(snapshot ? { snapshot } : {}),
    ...(nested ? { instructionDirs: nested.dirs } : {}),
  };
}

/** What a `tool.call` span says of the result: an error or not, its size, and a command's exit code. */
function toolResultAttributes(output: ToolOutput) {
  const exitCode = /\nExit code: (\d+)$/.exec(output.text)?.[1];
  return {
    'durable_agent.tool.is_error': output.isError ?? false,
    'durable_agent.tool.output_bytes': Buffer.byteLength(output.text),
    ...(exitCode !== undefined ? { 'durable_agent.tool.exit_code': Number(exitCode) } : {}),
  };
}

/** The working tree compared with a snapshot (stored as a snapshot too: content-addressed, so harmless). */
async function changesSince(store: ContentStore, workdir: string, snapshotRef: string): Promise<FileChange[]> {
  return (await takeSnapshot(store, workdir, snapshotRef)).changes;
}

/**
 * Tool-result budget: a result over the limit stays out of the context. The full text goes to
 * `<workdir>/.agent/tool-results/<tool_use id>.txt` (same name on a retry, so writing it again
 * is harmless) and the model sees the path and a preview.
 */
async function applyToolResultBudget(request: RunToolInput, text: string): Promise<string> {
  if (text.length <= (request.resultMaxChars ?? TOOL_RESULT_MAX_CHARS)) return text;
  const relativePath = join('.agent', 'tool-results', `${request.toolUseId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);
  const preview = `Preview (first ${TOOL_RESULT_PREVIEW_CHARS} characters):\n${text.slice(0, TOOL_RESULT_PREVIEW_CHARS)}`;
  try {
    await saveInScratchSpace(request.workdir, relativePath, text);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return `Output too large (${text.length} characters), and it could not be saved: ${error.message}\n\n${preview}`;
  }
  return `Output too large (${text.length} characters); the full output was saved to ${relativePath}. Read it in parts (offset and limit) or Grep it.\n\n${preview}`;
}

/**
 * Writes a file under `<workdir>/.agent/`, the agent's scratch space, beneath the workdir's
 * descriptor (a symlinked `.agent/` leading out is refused, never written through), with a
 * `.gitignore` of `*` created once (a file the user put there is left as it is).
 */
async function saveInScratchSpace(workdir: string, relativePath: string, text: string): Promise<void> {
  await inWorkdir(workdir, async (opened) => {
    const folder = dirname(relativePath);
    opened.makeDirectories(folder);
    const ignoreFile = join(dirname(folder), '.gitignore');
    if (!opened.stat(ignoreFile, { followLast: false })) {
      await opened.writeFile(
        ignoreFile,
        { data: '*\n', temporaryName: `.gitignore.${randomBytes(6).toString('hex')}.tmp` },
        { followLast: false },
      );
    }
    // A fresh file renamed into place: an existing file or symlink of that name is replaced, never written through.
    const name = basename(relativePath);
    await opened.writeFile(
      relativePath,
      { data: text, temporaryName: `.${name}.${randomBytes(6).toString('hex')}.tmp` },
      { followLast: false },
    );
  });
}
