import { AGENT_SEARCH_ATTRIBUTES, cliTypeName } from '../../../src/shared/search-attributes';

test('the search attributes of the contract, as the Temporal CLI registers them', () => {
  expect(AGENT_SEARCH_ATTRIBUTES.map((key) => `${key.name}=${cliTypeName(key)}`)).toEqual([
    'AgentTurn=Int',
    'AgentStatus=Keyword',
    'AgentLastTransition=Keyword',
    'AgentForkedFrom=Keyword',
    'AgentHost=Keyword',
    'AgentCostUsd=Double',
    'AgentRateLimitedUntil=Datetime',
  ]);
});
