/**
 * Grep's `type` filter: the common file types of ripgrep's `--type`, by file name. A name the
 * table does not have is refused with the list, so the model can correct itself.
 */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['.c', '.h'],
  cpp: ['.cpp', '.cc', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h', '.inl'],
  cs: ['.cs'],
  css: ['.css', '.scss', '.sass', '.less'],
  go: ['.go'],
  html: ['.html', '.htm', '.xhtml'],
  java: ['.java'],
  js: ['.js', '.jsx', '.mjs', '.cjs', '.vue'],
  json: ['.json', '.jsonc', '.json5'],
  kotlin: ['.kt', '.kts'],
  lua: ['.lua'],
  markdown: ['.md', '.markdown', '.mdx'],
  md: ['.md', '.markdown', '.mdx'],
  php: ['.php', '.phtml'],
  py: ['.py', '.pyi', '.pyw'],
  rb: ['.rb', '.rake', '.gemspec'],
  ruby: ['.rb', '.rake', '.gemspec'],
  rust: ['.rs'],
  scala: ['.scala', '.sc'],
  sh: ['.sh', '.bash', '.zsh', '.ksh'],
  sql: ['.sql'],
  swift: ['.swift'],
  toml: ['.toml'],
  ts: ['.ts', '.tsx', '.mts', '.cts'],
  xml: ['.xml', '.xsd', '.xsl', '.svg'],
  yaml: ['.yaml', '.yml'],
};

/** Whether `path` is of the named type (case-insensitive extension match). */
export function fileOfType(type: readonly string[], path: string): boolean {
  const lower = path.toLowerCase();
  return type.some((extension) => lower.endsWith(extension));
}
