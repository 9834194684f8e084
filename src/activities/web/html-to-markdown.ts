/**
 * A web page as readable Markdown for WebFetch: headings, paragraphs, lists, links, code, quotes
 * and table rows kept; scripts, styles, forms' insides, navigation chrome's markup and comments
 * dropped. A small converter of our own rather than a DOM library: the model only needs the text
 * and its structure, and the input is hostile (no recursion, one linear pass, capped by the
 * caller's byte limit before it gets here).
 */

/** Elements whose content is never text for a reader. */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas']);
/** Elements that start and end a block (a blank line around them). */
const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'nav',
  'aside',
  'form',
  'fieldset',
  'figure',
  'figcaption',
  'table',
  'ul',
  'ol',
  'dl',
  'dd',
  'dt',
  'details',
  'summary',
  'address',
  'hr',
]);
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  times: '×',
  euro: '€',
  pound: '£',
};

/** `&amp;`, `&#39;`, `&#x27;` and the common named entities; others are left as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** One attribute's value from a tag's text (`href="…"`, `href='…'`, `href=…`). */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  const value = match ? (match[1] ?? match[2] ?? match[3]) : undefined;
  return value === undefined ? undefined : decodeEntities(value).trim();
}

/** A link target made absolute against the page; `javascript:` and the like are dropped. */
function absolute(href: string | undefined, base: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = base ? new URL(href, base) : new URL(href);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

interface State {
  out: string[];
  /** Inside `<pre>`: whitespace kept. */
  pre: number;
  /** Inside an element whose content is dropped, and which. */
  dropping?: string;
  lists: ('ul' | 'ol')[];
  counters: number[];
  links: (string | undefined)[];
  base?: string;
  title?: string;
  inTitle: boolean;
}

/** The page's Markdown, with its `<title>` as a first heading when the body has none. */
export function htmlToMarkdown(html: string, baseUrl?: string): string {
  const state: State = { out: [], pre: 0, lists: [], counters: [], links: [], inTitle: false };
  if (baseUrl) state.base = baseUrl;
  const token =
    /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<![^>]*>|<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|[^<]+|</g;
  for (const match of html.matchAll(token)) {
    const [whole, rawName] = match;
    if (rawName === undefined) {
      if (whole.startsWith('<!') || state.dropping) continue;
      text(state, whole);
      continue;
    }
    const name = rawName.toLowerCase();
    const closing = whole.startsWith('</');
    if (state.dropping) {
      if (closing && name === state.dropping) state.dropping = undefined;
      continue;
    }
    if (closing) closeTag(state, name);
    else openTag(state, name, whole);
  }
  const body = tidy(state.out.join(''));
  const title = state.title?.replace(/\s+/g, ' ').trim();
  return title && !body.startsWith('# ') ? `# ${title}\n\n${body}`.trim() : body;
}

function text(state: State, raw: string): void {
  const decoded = decodeEntities(raw);
  if (state.inTitle) {
    state.title = (state.title ?? '') + decoded;
    return;
  }
  state.out.push(state.pre ? decoded : decoded.replace(/\s+/g, ' '));
}

function openTag(state: State, name: string, tag: string): void {
  if (name === 'title') {
    state.inTitle = true;
    return;
  }
  if (DROPPED.has(name)) {
    if (!tag.endsWith('/>')) state.dropping = name;
    return;
  }
  const out = state.out;
  if (/^h[1-6]$/.test(name)) out.push(`\n\n${'#'.repeat(Number(name[1]))} `);
  else if (name === 'br') out.push(state.pre ? '\n' : '  \n');
  else if (name === 'hr') out.push('\n\n---\n\n');
  else if (name === 'pre') {
    state.pre++;
    out.push('\n\n```\n');
  } else if (name === 'code' && !state.pre) out.push('`');
  else if (name === 'strong' || name === 'b') out.push('**');
  else if (name === 'em' || name === 'i') out.push('*');
  else if (name === 'blockquote') out.push('\n\n> ');
  else if (name === 'ul' || name === 'ol') {
    state.lists.push(name);
    state.counters.push(0);
    out.push('\n');
  } else if (name === 'li') {
    const depth = Math.max(0, state.lists.length - 1);
    const ordered = state.lists.at(-1) === 'ol';
    const number = ordered ? ++state.counters[state.counters.length - 1]! : 0;
    out.push(`\n${'  '.repeat(depth)}${ordered ? `${number}.` : '-'} `);
  } else if (name === 'a') {
    const href = absolute(attribute(tag, 'href'), state.base);
    state.links.push(href);
    // A link that goes nowhere a reader can follow (javascript:, none) is its text alone.
    if (href) out.push('[');
  } else if (name === 'img') {
    const alt = attribute(tag, 'alt');
    if (alt) out.push(`![${alt}]`);
  } else if (name === 'tr') out.push('\n|');
  else if (name === 'td' || name === 'th') out.push(' ');
  else if (name === 'base') state.base = absolute(attribute(tag, 'href'), state.base) ?? state.base;
  else if (BLOCKS.has(name)) out.push('\n\n');
}

function closeTag(state: State, name: string): void {
  const out = state.out;
  if (name === 'title') state.inTitle = false;
  else if (/^h[1-6]$/.test(name)) out.push('\n\n');
  else if (name === 'pre') {
    state.pre = Math.max(0, state.pre - 1);
    out.push('\n```\n\n');
  } else if (name === 'code' && !state.pre) out.push('`');
  else if (name === 'strong' || name === 'b') out.push('**');
  else if (name === 'em' || name === 'i') out.push('*');
  else if (name === 'blockquote') out.push('\n\n');
  else if (name === 'ul' || name === 'ol') {
    state.lists.pop();
    state.counters.pop();
    out.push('\n\n');
  } else if (name === 'a') {
    const href = state.links.pop();
    if (href) out.push(`](${href})`);
  } else if (name === 'td' || name === 'th') out.push(' |');
  else if (BLOCKS.has(name)) out.push('\n\n');
}

/** Blank lines at most two in a row, no stray indentation outside code, empty links and emphasis gone. */
function tidy(markdown: string): string {
  let fenced = false;
  const lines = markdown
    .replace(/\[\s*\]\([^)]*\)/g, '')
    .replace(/\*\*\s*\*\*/g, '')
    .split('\n')
    .map((line) => {
      if (line === '```') fenced = !fenced;
      if (fenced) return line;
      // A nested list item keeps its indentation; other text does not start with the space left of collapsed whitespace.
      const kept = /^ +(?:-|\d+\.) /.test(line) ? line : line.trimStart();
      return kept.endsWith('  ') ? `${kept.trimEnd()}  ` : kept.trimEnd();
    });
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
