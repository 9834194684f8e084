import { formatAge, formatCount, formatTable, type SessionRow } from '../../../src/cli/session-table';

const now = Date.parse('2026-11-30T12:00:00Z');
const row = (fields: Partial<SessionRow>): SessionRow => ({
  workflowId: 'agent-1',
  status: 'running_model',
  workflowStatus: 'RUNNING',
  turn: 3,
  startedAt: '2026-11-30T11:58:00Z',
  host: null,
  lastTransition: 'next_turn',
  tokens: { input: 12_345, output: 678 },
  source: 'state',
  ...fields,
});

describe('durable-agent list and status for people', () => {
  test('one row per session under a header: a closed session shows how it ended, unknowns a dash', () => {
    const table = formatTable(
      [
        row({}),
        row({
          workflowId: 'agent-2',
          status: 'finished',
          workflowStatus: 'COMPLETED',
          reason: 'completed',
          host: 'host-a',
          costUsd: 0.0421,
        }),
        row({
          workflowId: 'agent-3',
          status: 'terminated',
          workflowStatus: 'TERMINATED',
          turn: null,
          tokens: null,
          lastTransition: null,
        }),
      ],
      now,
    );
    expect(table.split('\n')).toEqual([
      'ID       STATUS                TURN  AGE    HOST    LAST TRANSITION  TOKENS (IN/OUT)  COST',
      'agent-1  running_model         3     2 min  —       next_turn        12k / 678        —',
      'agent-2  finished (completed)  3     2 min  host-a  next_turn        12k / 678        $0.0421',
      'agent-3  terminated            —     2 min  —       —                —                —',
    ]);
  });

  test('ages and token counts stay short', () => {
    expect([formatAge(5_000), formatAge(600_000), formatAge(7_200_000), formatAge(3 * 86_400_000)]).toEqual([
      '5 s',
      '10 min',
      '2 h',
      '3 d',
    ]);
    expect([formatCount(950), formatCount(1_234), formatCount(45_678), formatCount(4_100_000)]).toEqual([
      '950',
      '1.2k',
      '46k',
      '4.1M',
    ]);
  });
});
