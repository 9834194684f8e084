/**
 * The documentation's links and paths stay true: every relative link in README.md,
 * CONTRIBUTING.md and docs/*.md names a file that exists (and, with `#anchor`, a heading of it),
 * and every path under src/, test/, scripts/, bin/ or deploy/ that the pages we keep mention
 * exists, so a file moved without its documentation following fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../support/paths';

const DOCS = join(PROJECT_ROOT, 'docs');

/** Every Markdown page whose links are checked. */
function pages(): string[] {
  const docs = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name));
  return [join(PROJECT_ROOT, 'README.md'), join(PROJECT_ROOT, 'CONTRIBUTING.md'), ...docs].filter((path) =>
    existsSync(path),
  );
}

/** Paths of the user's repository in examples, not of this one. */
const EXAMPLE_PATHS = new Set([
  'src/a.ts',
  'src/b.ts',
  'src/config.js',
  'src/config.test.js',
  'src/main.js',
  'src/cart.test.js',
]);

/** The text outside fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count ? `${base}-${count}` : base);
  }
  return result;
}

/** `[text](target)` links of the prose, inline code left out (a `](x)` in code is no link). */
function links(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '``');
  return [...text.matchAll(/\]\(([^)\s]+)(?: +"[^"]*")?\)/g)].map((match) => match[1]);
}

const relativeName = (path: string) => relative(PROJECT_ROOT, path);

test('every relative link of the documentation leads to a file, and an anchor to a heading of it', () => {
  const broken: string[] = [];
  for (const page of pages()) {
    const markdown = readFileSync(page, 'utf8');
    for (const link of links(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [path, anchor] = link.split('#', 2);
      const target = path ? resolve(dirname(page), decodeURI(path)) : page;
      if (!existsSync(target)) {
        broken.push(`${relativeName(page)}: ${link} (no such file)`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor))
        broken.push(`${relativeName(page)}: ${link} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

test('every path of this repository that the pages name exists', () => {
  const missing: string[] = [];
  for (const page of pages()) {
    const markdown = readFileSync(page, 'utf8');
    for (const [, path] of markdown.matchAll(/(?<![\w./~<-])((?:src|test|scripts|bin|deploy)\/[\w./-]*[\w/])/g)) {
      const clean = path.replace(/\/$/, '');
      if (EXAMPLE_PATHS.has(clean)) continue;
      if (!existsSync(join(PROJECT_ROOT, clean))) missing.push(`${relativeName(page)}: ${path}`);
    }
  }
  expect(missing).toEqual([]);
});

test('anchors are spelled as GitHub spells them', () => {
  expect(slug("Taking a session back: `rewind` or Temporal's reset")).toBe(
    'taking-a-session-back-rewind-or-temporals-reset',
  );
  expect(slug('Connecting to Temporal: TLS, API keys, Temporal Cloud')).toBe(
    'connecting-to-temporal-tls-api-keys-temporal-cloud',
  );
  expect(slug('Events (`--json`)')).toBe('events---json');
});

test('every page of docs/ is linked from the README (its index), so nothing moved out of it is lost', () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const unlinked = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .filter((name) => !readme.includes(`](docs/${name}`));
  expect(unlinked).toEqual([]);
});
