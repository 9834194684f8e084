import type { CloseSessionInput, CloseSessionOutput } from '../../shared/activity-io';
import { type ContentStore, putJson } from '../../store/content-store';
import type { EffectJournal } from '../../store/effect-journal';
import type { McpPool } from '../mcp/mcp-pool';
import { storeTranscriptNode } from '../../store/transcript-chain';
import type { WorkdirLeases } from '../../store/workdir-leases';

export function createCloseSessionActivities({
  journal,
  store,
  mcpPool,
  leases,
}: {
  journal: EffectJournal;
  store: ContentStore;
  mcpPool?: McpPool;
  leases?: WorkdirLeases;
}) {
  return {
    /**
     * The session ended: no tool call of it can be retried any more, so its edit journal goes,
     * with any temporary file a crash mid-write left in the repository. Its transcript is stored
     * (content-addressed, so a retry writes the same object) for clients with no worker to ask:
     * its last node, after those its model calls stored (sessions recorded before: the run's whole).
     * Last, its workdir's lease is released (its MCP servers, which run there, are gone by then).
     */
    async closeSession(input: CloseSessionInput): Promise<CloseSessionOutput> {
      await journal.close(input.sessionId);
      // Its MCP servers on this worker end with it (stdio servers are killed).
      await mcpPool?.closeSession(input.sessionId);
      const output = await storeTranscript(store, input);
      if (input.workdirLease) await leases?.release(input.workdirLease.key, input.workdirLease.holder);
      return output;
    },
  };
}

async function storeTranscript(store: ContentStore, input: CloseSessionInput): Promise<CloseSessionOutput> {
  if (input.transcriptAppend) return { transcriptRef: await storeTranscriptNode(store, input.transcriptAppend) };
  if (!input.transcript) return {};
  return { transcriptRef: await putJson(store, { entries: input.transcript, snapshots: input.snapshots ?? [] }) };
}
