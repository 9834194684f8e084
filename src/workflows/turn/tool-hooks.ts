/**
 * Tool hooks in the loop (Claude Code's PreToolUse and PostToolUse): the session's hooks (input
 * `hooks`, then the trusted repository's settings) that match a call run as one activity on the
 * session's host before it (to deny it, let it through without a person, or ask one) and after
 * it (feedback joins its result). A hook's `continue: false` ends the run once the turn's tools
 * are done (`hook_stopped`).
 *
 * A call no hook matches schedules nothing and awaits nothing more than before: sessions without
 * tool hooks make exactly the commands they made before hooks existed, so their histories replay.
 */
import { ActivityCancellationType, isCancellation, patched } from '@temporalio/workflow';
import type { PlannedToolUse, RunToolOutput, ToolHookResult } from '../../shared/activity-io';
import type { TranscriptEntry } from '../../shared/contract';
import {
  agentTypeOf,
  type HookCommand,
  matchingHooks,
  matchingPromptHooks,
  mergeToolHooks,
  type ToolHookEvent,
  type ToolHooks,
} from '../../shared/hooks';
import type { ToolHookInput, ToolHookOutcome } from '../../shared/hook-runs';
import { runToolHooks, STOP_HOOK_OPTIONS } from '../activity-options';
import type { AgentSession } from '../session/agent-session';
import type { ApprovalAnswer } from '../session/steering';
import { failureMessage } from '../core/failures';
import { currentInput } from '../core/workdir-moves';
import { summaryOf } from '../core/call-summary';
import { rulesOf } from '../core/tool-rules';
import { POST_TOOL_USE_FAILURE_PATCH } from '../core/features';
import { currentPermissionMode, type PermissionSession } from './permissions';

/** What tool hooks uses of the session: a phase takes what it needs, not the whole session. */
export type ToolHookSession = Pick<
  AgentSession,
  'host' | 'id' | 'input' | 'note' | 'permissionMode' | 'prepared' | 'recordSnapshot' | 'state' | 'workspace'
>;

/** The input's hooks, then those of the repository's settings (read when the session was prepared, only when trusted). */
export function sessionToolHooks(session: ToolHookSession): ToolHooks {
  return mergeToolHooks(session.input.toolHooks, session.prepared.settingsToolHooks);
}

/** A PreToolUse hook denied the call: its reason is the call's `is_error` result. */
export interface HookDenial {
  decision: 'hook_deny';
  reason: string;
}

/**
 * Whether a call waits for a person, given the PreToolUse hooks' decision and whether the
 * permission mode and allow rules ask for one: `ask` always does; `allow` never does, but for
 * calls no rule may approve (a repository settings file: only a person can).
 */
export function needsPerson(decision: ToolHookOutcome['decision'], call: PlannedToolUse, byRules: boolean): boolean {
  if (!call.plan.ok) return false;
  if (decision === 'ask') return true;
  if (decision === 'allow') return rulesOf(call).alwaysAsk !== undefined && byRules;
  return byRules;
}

/** The hooks of one tool turn: what they decided, and whether one asked the run to stop. */
export class TurnHooks {
  private readonly hooks: ToolHooks;
  private readonly stops: string[] = [];
  /** Calls a PreToolUse hook's `updatedInput` changed, by id: what runs instead. */
  private readonly updated = new Map<string, PlannedToolUse>();
  /** PreToolUse `additionalContext`, by call id: it goes with the call's result. */
  private readonly contexts = new Map<string, string>();

  /** `snapshotting`: the turn's calls (and hooks) whose changes still want a snapshot at the turn's end. */
  constructor(
    private readonly session: ToolHookSession,
    private readonly snapshotting: Set<string>,
  ) {
    this.hooks = sessionToolHooks(session);
  }

  /** Why a hook asked the run to end after this turn's tools (`continue: false`), if one did. */
  get stopReason(): string | undefined {
    return this.stops.length ? this.stops.join('\n') : undefined;
  }

  /** Synchronous, so a call without hooks awaits nothing more than before. */
  matches(event: CallEvent, call: PlannedToolUse): boolean {
    return (
      call.plan.ok &&
      (matchingHooks(this.hooks, event, call.name, rulesOf(call).aliases).length > 0 ||
        matchingPromptHooks(this.hooks, event, call.name, rulesOf(call).aliases).length > 0)
    );
  }

  /** The call as it runs: the model's, or the one a PreToolUse hook's `updatedInput` made of it. */
  callFor(call: PlannedToolUse): PlannedToolUse {
    return this.updated.get(call.id) ?? call;
  }

  /**
   * Runs the call as its PreToolUse hooks left it (`updatedInput`), with its PostToolUse hooks
   * around it; the PreToolUse hooks' `additionalContext` goes with its result, for the model.
   */
  runAs(call: PlannedToolUse, runCall: (planned: PlannedToolUse) => Promise<RunToolOutput>): Promise<RunToolOutput> {
    const planned = this.callFor(call);
    const running = this.around(planned, () => runCall(planned));
    // Without context, the call's own promise: a call without hooks awaits nothing more than before.
    const context = this.contexts.get(call.id);
    if (!context) return running;
    return running.then((output) => ({ ...output, result: { ...output.result, hookContext: context } }));
  }

  /**
   * PreToolUse hooks of a call (only called when `matches`). Before a call that changes files (it
   * runs alone) they snapshot what they changed, and the call snapshots over that; before others,
   * the turn's end does.
   */
  async before(call: PlannedToolUse): Promise<ToolHookOutcome> {
    const base = rulesOf(call).changesFiles ? this.session.workspace.latestRef : undefined;
    const outcome = await this.run(call, 'PreToolUse', base ? { snapshotRef: base } : {});
    if (outcome.snapshot) this.session.recordSnapshot(this.session.state.turnCount, outcome.snapshot);
    else if (this.session.workspace.latestRef) this.snapshotting.add(`PreToolUse ${call.id}`);
    if (outcome.decision) this.note(call, 'PreToolUse', outcome.decision, outcome.reason ?? '');
    // What the hooks changed counts only when they let the call through.
    if (outcome.decision !== 'deny') this.takeUpdates(call, outcome);
    return outcome;
  }

  /** Whether PermissionRequest or Notification hooks await a call about to wait for a person (synchronous). */
  beforePersonMatches(call: PlannedToolUse): boolean {
    return this.matches('PermissionRequest', call) || this.notificationHooks().length > 0;
  }

  /**
   * Before a call waits for a person: its PermissionRequest hooks may answer for them
   * (`hookSpecificOutput.decision.behavior` `allow` or `deny`, exit 2 denies); if none does, the
   * Notification hooks (`permission_prompt`) are told, and the call waits.
   */
  async beforePerson(call: PlannedToolUse): Promise<ApprovalAnswer | undefined> {
    if (this.matches('PermissionRequest', call)) {
      const outcome = await this.run(call, 'PermissionRequest', {});
      // A call only a person may approve (a repository settings file) is not a hook's to allow.
      const mayAllow = rulesOf(call).alwaysAsk === undefined;
      if ((outcome.decision === 'allow' && mayAllow) || outcome.decision === 'deny') {
        this.note(call, 'PermissionRequest', outcome.decision, outcome.reason ?? '');
        if (outcome.decision === 'allow') return { decision: 'allow' };
        return { decision: 'deny', feedback: outcome.reason ?? 'A PermissionRequest hook denied this call' };
      }
    }
    const notify = this.notificationHooks();
    if (notify.length === 0) return undefined;
    const message = `durable-agent needs your permission to use ${call.name}`;
    const fields = { message, title: 'Permission needed', notification_type: 'permission_prompt' };
    const outcome = await runHookActivity(
      this.session,
      'Notification',
      notify,
      { eventFields: fields },
      `Notification hooks · ${summaryOf(call)}`,
    );
    for (const report of outcome.reports) this.note(call, 'Notification', 'report', report);
    return undefined;
  }

  private notificationHooks(): HookCommand[] {
    return matchingHooks(this.hooks, 'Notification', 'permission_prompt');
  }

  private takeUpdates(call: PlannedToolUse, outcome: ToolHookResult): void {
    if (outcome.updatedCall) {
      this.updated.set(call.id, outcome.updatedCall);
      const plan = outcome.updatedCall.plan;
      this.note(call, 'PreToolUse', 'updated_input', plan.ok ? plan.summary : 'the updated input is not valid');
    }
    if (outcome.context) {
      this.contexts.set(call.id, outcome.context);
      this.note(call, 'PreToolUse', 'context', outcome.suppressOutput ? '(suppressOutput)' : outcome.context);
    }
  }

  /**
   * Runs the call, then its PostToolUse hooks (it succeeded) or PostToolUseFailure hooks (it
   * failed) when any match (else the call alone, as before hooks).
   */
  around(call: PlannedToolUse, runCall: () => Promise<RunToolOutput>): Promise<RunToolOutput> {
    return this.matches('PostToolUse', call) || this.matches('PostToolUseFailure', call)
      ? runCall().then((output) => this.after(call, output))
      : runCall();
  }

  /**
   * The event a finished call's hooks run for: a failed call ran its PostToolUse hooks before
   * Claude Code's PostToolUseFailure (asked only for a failed call: old histories replay that).
   */
  private afterEvent(call: PlannedToolUse, output: RunToolOutput): 'PostToolUse' | 'PostToolUseFailure' | undefined {
    const event = output.result.isError && patched(POST_TOOL_USE_FAILURE_PATCH) ? 'PostToolUseFailure' : 'PostToolUse';
    return this.matches(event, call) ? event : undefined;
  }

  private async after(call: PlannedToolUse, output: RunToolOutput): Promise<RunToolOutput> {
    const event = this.afterEvent(call, output);
    if (!event) return output;
    // A call that changes files runs alone and snapshotted the workspace as it left it: the hooks
    // (a formatter) snapshot over that, and the turn's snapshot holds both. Otherwise the turn's
    // end snapshots the workspace (a call that brought back no snapshot leaves that to it already).
    const base = rulesOf(call).changesFiles ? output.snapshot?.ref : undefined;
    const result = output.result;
    let outcome: ToolHookOutcome;
    try {
      outcome = await this.run(call, event, {
        result: {
          content: result.content,
          isError: result.isError,
          ...(call.plan.ok && call.plan.filePath ? { filePath: call.plan.filePath } : {}),
        },
        ...(base ? { snapshotRef: base } : {}),
      });
    } catch (error) {
      if (!isCancellation(error)) throw error;
      // Interrupted while its hooks ran: the call itself did run, and its result says what it did
      // (the turn then stops for the interrupt); what the hooks changed goes into the turn's snapshot.
      if (this.session.workspace.latestRef) this.snapshotting.add(`${event} ${call.id}`);
      return output;
    }
    let snapshot = output.snapshot;
    if (outcome.snapshot)
      snapshot = {
        ref: outcome.snapshot.ref,
        filesChanged: (output.snapshot?.filesChanged ?? 0) + outcome.snapshot.filesChanged,
      };
    else if (this.session.workspace.latestRef) this.snapshotting.add(`${event} ${call.id}`);
    if (outcome.outputReplaced) this.note(call, event, 'updated_output', 'the result the model sees was replaced');
    else if (outcome.content) this.note(call, event, 'feedback', 'feedback added to the result');
    return {
      ...output,
      result: outcome.content ? { ...result, content: outcome.content } : result,
      ...(snapshot ? { snapshot } : {}),
    };
  }

  private async run(call: PlannedToolUse, event: CallEvent, fields: Partial<ToolHookInput>): Promise<ToolHookResult> {
    const aliases = rulesOf(call).aliases;
    const hooks = matchingHooks(this.hooks, event, call.name, aliases);
    const prompts = matchingPromptHooks(this.hooks, event, call.name, aliases);
    const mcp = rulesOf(call).mcp;
    const tool = {
      name: call.name,
      toolUseId: call.id,
      input: currentInput(this.session.state, call.input),
      ...(mcp ? { mcp } : {}),
    };
    const outcome = await runHookActivity(
      this.session,
      event,
      hooks,
      { tool, ...(prompts.length ? { prompts } : {}), ...fields },
      `${event} hooks · ${summaryOf(call)}`,
    );
    for (const report of outcome.reports) this.note(call, event, 'report', report);
    for (const message of outcome.systemMessages ?? []) this.note(call, event, 'message', message);
    if (outcome.stop) {
      this.stops.push(outcome.stop);
      this.note(call, event, 'stop', outcome.stop);
    }
    return outcome;
  }

  private note(call: PlannedToolUse, event: ToolHookEvent, outcome: HookNote['outcome'], detail: string): void {
    this.session.note({ type: 'hook', event, toolUseId: call.id, outcome, detail });
  }
}

type HookNote = Extract<TranscriptEntry, { type: 'hook' }>;
/** The events of a tool call's hooks. */
type CallEvent = 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure' | 'PermissionRequest';

/**
 * What every hook reads of the session besides its event: `permission_mode` (the session's mode,
 * by Claude Code's name) and, in a sub-agent, `agent_id` (the parent's Task call) and `agent_type`.
 */
export function commonHookFields(session: PermissionSession): Pick<ToolHookInput, 'permissionMode' | 'agent'> {
  const parent = session.input.parentSession;
  return {
    permissionMode: currentPermissionMode(session),
    ...(parent
      ? {
          agent: { id: parent.toolUseId, type: agentTypeOf(parent) },
        }
      : {}),
  };
}

/**
 * One event's matched hooks as an activity on the session's host. A cancelled workflow waits for
 * them to stop (they are commands with effects); an activity that fails decides nothing, and the
 * transcript says why.
 */
export async function runHookActivity(
  session: ToolHookSession,
  event: ToolHookEvent,
  hooks: HookCommand[],
  fields: Partial<ToolHookInput>,
  summary: string,
): Promise<ToolHookResult> {
  const state = session.state;
  try {
    return await session.host.call((where) =>
      runToolHooks.executeWithOptions(
        {
          ...STOP_HOOK_OPTIONS,
          cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
          ...where,
          summary,
        },
        [
          {
            sessionId: session.id,
            workdir: state.workdir,
            event,
            hooks,
            ...(state.sandbox ? { sandbox: state.sandbox } : {}),
            ...commonHookFields(session),
            ...(state.conversationRef ? { conversationRef: state.conversationRef } : {}),
            ...(state.pendingMessages.length ? { pendingMessages: state.pendingMessages } : {}),
            ...fields,
          },
        ],
      ),
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { reports: [`${event} hooks could not run: ${failureMessage(error)}`] };
  }
}
