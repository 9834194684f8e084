/** The server-side search's answer as WebSearch reports it. */
import { answerOf } from '../../../../src/activities/web/web-access';

test("the search's answer: the links of its results, the model's words, an error's code", () => {
  const answer = answerOf([
    { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'durable agents' } },
    {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_1',
      content: [
        {
          type: 'web_search_result',
          title: 'Temporal',
          url: 'https://temporal.io/',
          encrypted_content: '',
          page_age: null,
        },
      ],
    },
    {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_2',
      content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
    },
    { type: 'text', text: 'Temporal runs durable workflows.', citations: null },
  ] as never);
  expect(answer).toEqual({
    links: [{ title: 'Temporal', url: 'https://temporal.io/' }],
    commentary: ['Web search error: max_uses_exceeded', 'Temporal runs durable workflows.'],
    searches: 1,
  });
});
