import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Just enough Markdown for the docs test: the project's pages, their fenced code blocks, inline code, links and
 * headings, each with the line it is on (1-based) so that a failure points at it.
 */

export const ROOT = join(__dirname, '..', '..');

export interface CodeBlock {
  lang: string;
  /** The block's lines, with the file's line number of each. */
  lines: { text: string; line: number }[];
}

export interface Page {
  /** Relative to the repository, with `/`. */
  path: string;
  text: string;
  blocks: CodeBlock[];
  /** The text outside code blocks; each block's lines are blanked, so that offsets keep their line numbers. */
  prose: string;
}

/** README.md and every Markdown file under docs/. */
export function loadPages(root = ROOT): Page[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', ...docs.sort()].map((path) => parsePage(path.split('\\').join('/'), root));
}

export function parsePage(path: string, root = ROOT): Page {
  const text = readFileSync(join(root, path), 'utf8');
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; block: CodeBlock } | undefined;
  text.split('\n').forEach((raw, i) => {
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(raw);
    if (open) {
      if (fence && fence[1]!.startsWith(open.fence) && raw.trim() === fence[1]) open = undefined;
      else open.block.lines.push({ text: raw, line: i + 1 });
      prose.push('');
    } else if (fence) {
      open = { fence: fence[1]!, block: { lang: fence[2] ?? '', lines: [] } };
      blocks.push(open.block);
      prose.push('');
    } else {
      prose.push(raw);
    }
  });
  return { path, text, blocks, prose: prose.join('\n') };
}

export const lineAt = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/** Inline code spans of the prose (a span may run over a line break, as Markdown allows inside a paragraph). */
export function inlineCode(page: Page): { code: string; line: number }[] {
  const spans: { code: string; line: number }[] = [];
  for (const m of page.prose.matchAll(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g)) {
    if (m[2]!.includes('\n\n')) continue;
    // In a table cell, `\|` is a pipe inside the code.
    const code = m[2]!.replace(/\s*\n\s*/g, ' ').replace(/\\\|/g, '|');
    spans.push({ code: code.trim(), line: lineAt(page.prose, m.index) });
  }
  return spans;
}

/** The prose with inline code blanked (same length), where links and headings are read. */
function proseWithoutCode(page: Page): string {
  return page.prose.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images `[text](target)`, and reference definitions `[label]: target`. */
export function links(page: Page): Link[] {
  const prose = proseWithoutCode(page);
  const found: Link[] = [];
  for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
    found.push({ target: m[1]!, line: lineAt(prose, m.index) });
  }
  for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) {
    found.push({ target: m[1]!, line: lineAt(prose, m.index) });
  }
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens (github-slugger's rules). */
export function slug(heading: string): string {
  const visible = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\*/g, '')
    .replace(/<[^>]+>/g, '');
  return visible
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page has: its headings' slugs (repeats numbered -1, -2, … as GitHub does) and explicit ids. */
export function anchors(page: Page): Set<string> {
  const prose = page.prose;
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const m of prose.matchAll(/^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const m of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(m[1]!);
  return result;
}

export const relativeToRoot = (absolute: string, root = ROOT): string => relative(root, absolute).split('\\').join('/');
