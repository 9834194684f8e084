import { decodeEntities, htmlToMarkdown } from '../../../../src/activities/web/html-to-markdown';

const page = `<!doctype html><html><head><title>The Guide &amp; more</title><style>p { color: red }</style>
<script>document.write("<p>not text</p>")</script></head>
<body><nav><a href="/">Home</a> <a href="javascript:void(0)">Menu</a></nav>
<h2>Install</h2><p>Run <code>make&nbsp;all</code>, then <a href="docs/next.html">read on</a>.</p>
<ul><li>one</li><li><strong>two</strong><ol><li>a</li><li>b</li></ol></li></ul>
<pre>  indented
    code &lt;x&gt;</pre>
<table><tr><th>key</th><th>value</th></tr><tr><td>a</td><td>1</td></tr></table>
<!-- <p>a comment</p> --><p>Bye<br>now &#x263A; &#9731;</p></body></html>`;

test('a page becomes Markdown: title, headings, links made absolute, lists, code, tables; scripts, styles and comments dropped', () => {
  expect(htmlToMarkdown(page, 'https://example.com/guide/')).toBe(
    [
      '# The Guide & more',
      '',
      '[Home](https://example.com/) Menu',
      '',
      '## Install',
      '',
      'Run `make all`, then [read on](https://example.com/guide/docs/next.html).',
      '',
      '- one',
      '- **two**',
      '',
      '  1. a',
      '  2. b',
      '',
      '```',
      '  indented',
      '    code <x>',
      '```',
      '',
      '| key | value |',
      '| a | 1 |',
      '',
      'Bye  ',
      'now ☺ ☃',
    ].join('\n'),
  );
});

test('hostile markup ends without throwing or looping: unclosed tags, stray brackets, bad entities', () => {
  expect(htmlToMarkdown('<p>a < b <script>never closed <p>x')).toBe('a < b');
  expect(htmlToMarkdown('<a href="x">unclosed link', 'https://example.com/')).toBe('[unclosed link');
  expect(decodeEntities('&#0; &#xD800; &bogus; &lt;')).toBe('&#0; &#xD800; &bogus; <');
  expect(htmlToMarkdown(`${'<div>'.repeat(50_000)}deep`)).toBe('deep');
});
