import { formatUsd } from '../shared/model-prices';
import type { AgentResult, TranscriptEntry } from '../shared/contract';
import { formatDiffStat } from '../snapshots/diff-stat';
import { usefulLine } from '../shared/result-preview';

const indent = (text: string, prefix = '  ') =>
  text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');

/** One transcript entry as the CLI prints it while a session runs. */
export function formatEntry(entry: TranscriptEntry): string | undefined {
  switch (entry.type) {
    case 'user':
      return `▶ task: ${entry.text}`;
    case 'user_message':
      return `▶ message: ${entry.text}`;
    case 'session':
      return formatSessionEntry(entry);
    case 'assistant': {
      const header = `── turn ${entry.turn} · ${entry.stopReason} · ${entry.usage.inputTokens} in / ${entry.usage.outputTokens} out`;
      return entry.text ? `${header}\n${indent(entry.text)}` : header;
    }
    case 'tool_call':
      return `  → ${entry.summary}`;
    case 'tool_result': {
      const line = usefulLine(entry.preview, entry.isError);
      const shown = line.length > 120 ? `${line.slice(0, 117)}...` : line;
      return `  ${entry.isError ? '✗' : '✓'} ${entry.name}: ${shown}`;
    }
    case 'transition':
      return entry.transition === 'next_turn'
        ? undefined
        : `  ↻ ${entry.transition}${entry.detail ? ` (${entry.detail})` : ''}`;
    case 'context':
      if (entry.error) return `  ⇣ context: ${entry.error}`;
      return `  ⇣ context: ${entry.edits.join(', ')} (~${entry.estimatedTokens} tokens)`;
    case 'stop_hook':
      return `  ⚑ stop hook ${entry.outcome}: ${entry.detail.split('\n')[0]}`;
    case 'hook':
      return `  ⚑ ${entry.event} hook ${entry.outcome}${entry.detail ? `: ${entry.detail.split('\n')[0]}` : ''}`;
    case 'approval':
      return `  ? approval ${entry.decision} for ${entry.toolUseId}${entry.mode ? ` (now in ${entry.mode} mode)` : ''}${entry.feedback ? `: ${entry.feedback}` : ''}`;
    case 'permission_mode':
      return `  ⚑ permission mode: ${entry.mode} (${entry.detail})`;
    case 'question':
      return `  ? answered ${entry.toolUseId}: ${Object.entries(entry.answers)
        .map(([question, answer]) => `${question} → ${answer}`)
        .join('; ')}`;
    case 'interrupt':
      return `  ⏹ interrupted (${entry.stopped})`;
    case 'tool_summary':
      return `  ≡ ${entry.text}`;
    case 'dropped_signal':
      return `  ⚠ signal ${entry.signal} dropped: ${entry.problem}`;
    case 'sub_agent_tools':
      return `  ⚑ ${entry.detail} (Task ${entry.toolUseId})`;
    case 'worktree_merge':
      return formatMerge(entry);
    case 'snapshot':
      return formatSnapshot(entry);
    case 'workdir_lease':
      return `  ⏸ ${entry.detail}`;
    case 'background':
      return `  ⧗ background ${entry.taskId} ${entry.status}: ${entry.description}`;
    case 'reset':
      return formatReset(entry);
    case 'end':
      return `■ ${entry.reason}${entry.error ? `: ${entry.error}` : ''}`;
  }
}

/** A snapshot that changed files, or why it failed (one that changed nothing is not shown). */
function formatSnapshot(entry: Extract<TranscriptEntry, { type: 'snapshot' }>): string | undefined {
  if (entry.error) return `  ⚠ snapshot after turn ${entry.turn} failed: ${entry.error}`;
  return entry.filesChanged ? `  ◆ snapshot: ${entry.filesChanged} file(s) changed` : undefined;
}

/** A reset run's put-back, or why it failed. */
function formatReset(entry: Extract<TranscriptEntry, { type: 'reset' }>): string {
  if (entry.error) return `  ⚠ reset: ${entry.error}`;
  return `  ↺ reset: files back to turn ${entry.snapshotTurn} (${entry.filesRestored ?? 0} file(s) put back${entry.previousSnapshot ? `; as found: ${entry.previousSnapshot}` : ''})`;
}

/** A writing sub-agent's merge: files merged and conflicts, or why nothing was. */
function formatMerge(entry: Extract<TranscriptEntry, { type: 'worktree_merge' }>): string {
  if (entry.error)
    return `  ⑃ ${entry.workflowId}: nothing merged (${entry.error}); its files stay in ${entry.worktree}`;
  const conflicts = entry.conflicts.length
    ? `, conflicts in ${entry.conflicts.join(', ')} (kept in ${entry.worktree})`
    : '';
  const removed = entry.worktreeRemoved ? `; worktree ${entry.worktree} removed` : '';
  return `  ⑃ merged ${entry.workflowId}: ${entry.filesMerged} file(s)${conflicts}${removed}`;
}

/** A session's opening notes: sandbox, network, fork, instructions, what was skipped, MCP servers. */
function formatSessionEntry(entry: Extract<TranscriptEntry, { type: 'session' }>): string | undefined {
  return (
    [
      entry.sandbox === 'none'
        ? "  ⚠ sandbox: none: this session's commands run unconfined, with the worker's privileges (install bubblewrap, or see AGENT_SANDBOX in the README)"
        : undefined,
      entry.network ? `  ⇄ network: ${describeNetwork(entry.network)}` : undefined,
      ...(entry.network?.warnings ?? []).map((warning) => `  ⚠ ${warning}`),
      entry.forkedFrom
        ? `  ⑂ forked from ${entry.forkedFrom.workflowId} at turn ${entry.forkedFrom.turn} into ${entry.workdir}`
        : undefined,
      entry.instructionFiles?.length ? `  ✎ instructions: ${entry.instructionFiles.join(', ')}` : undefined,
      entry.skippedRepoHooks?.length
        ? `  ⚑ repository hooks found and not run (not trusted: input trustRepoHooks, or the worker's AGENT_TRUST_REPO_HOOKS=1): ${entry.skippedRepoHooks.join(', ')}`
        : undefined,
      ...(entry.skippedSettings ?? []).map(
        ({ file, path, reason }) => `  ⚑ repository setting not used: ${file}${path ? ` ${path}` : ''}: ${reason}`,
      ),
      entry.skippedRepoAgents?.length
        ? `  ⚑ repository agent types not used: ${entry.skippedRepoAgents.join(', ')}`
        : undefined,
      entry.skills?.length ? `  skills: ${entry.skills.join(', ')}` : undefined,
      entry.skippedSkills?.length ? `  ⚑ skills not used: ${entry.skippedSkills.join(', ')}` : undefined,
      entry.skippedMcpJson
        ? `  ⚑ MCP servers of ${entry.skippedMcpJson} not started (not trusted: input trustRepoHooks, or the worker's AGENT_TRUST_REPO_HOOKS=1)`
        : undefined,
      ...(entry.mcpServers ?? []).map((server) =>
        server.status === 'connected'
          ? `  ⚙ MCP server ${server.name}: ${server.tools.length} tool(s)`
          : `  ⚠ MCP server ${server.name} failed to start: ${server.error ?? 'unknown error'}`,
      ),
    ]
      .filter(Boolean)
      .join('\n') || undefined
  );
}

export function formatResult(result: AgentResult): string {
  const usage = result.usage;
  return [
    `Result: ${result.reason} after ${result.turnCount} turn(s)`,
    `Tokens: ${usage.inputTokens} in, ${usage.outputTokens} out, ${usage.cacheReadInputTokens} cache read, ${usage.cacheCreationInputTokens} cache write`,
    ...(usage.costUsd !== undefined ? [`Cost: ${formatUsd(usage.costUsd)} (sub-agents included)`] : []),
    ...(result.error ? [`Error: ${result.error}`] : []),
    ...(result.filesChanged
      ? [result.filesChanged.length ? `Files changed:\n${formatDiffStat(result.filesChanged)}` : 'Files changed: none']
      : []),
    ...(result.branch
      ? [
          `Branch: ${result.branch.name} at ${result.branch.commit.slice(0, 12)}, ${result.branch.pushed ? 'pushed' : `not pushed (${result.branch.pushError})`}`,
        ]
      : []),
    ...(result.branch?.notCommitted?.length
      ? [`Not committed:\n${result.branch.notCommitted.map(({ path, reason }) => `  ${path}: ${reason}`).join('\n')}`]
      : []),
  ].join('\n');
}

/** `filtered: 21 allowed domains (registry.npmjs.org, pypi.org, …)`, `none`, `host`. */
function describeNetwork(network: { mode: string; allowedDomains?: string[] }): string {
  if (network.mode !== 'filtered')
    return network.mode === 'none' ? 'none (commands have only a loopback)' : "host (the worker's own network)";
  const domains = network.allowedDomains ?? [];
  const shown = domains.slice(0, 4).join(', ');
  return `filtered, through the worker's proxy to ${domains.length} allowed domain(s)${domains.length ? ` (${shown}${domains.length > 4 ? ', …' : ''})` : ''}`;
}
