/**
 * Signals, updates and queries of `agentWorkflow`, in one place. Names are part of the public
 * contract (used from the Temporal CLI: `temporal workflow query --type state`).
 */
import { defineQuery } from '@temporalio/workflow';
import type { AgentState, TranscriptEntry } from '../shared/types';

export interface TranscriptPage {
  entries: TranscriptEntry[];
  /** Pass as `fromIndex` to get what came after. */
  nextIndex: number;
  total: number;
}

export interface TranscriptRequest {
  fromIndex?: number;
  limit?: number;
}

export const stateQuery = defineQuery<AgentState>('state');
export const transcriptQuery = defineQuery<TranscriptPage, [TranscriptRequest?]>('transcript');
