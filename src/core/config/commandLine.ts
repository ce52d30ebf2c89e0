// Turns what a user pastes into "Add Server…" (a command line or a URL) into an entry of the
// same shape as .vscode/mcp.json. Shell-like quoting only: no expansion, no pipes.

import path from 'node:path';
import type { StdioServerDefinition } from './types';

/** An absolute path spelled with `..` or `.` (from `${workspaceFolder}/../x`) reads as the path it is. */
export function readablePath(part: string): string {
  return path.isAbsolute(part) && /(^|[\\/])\.\.?([\\/]|$)/.test(part) ? path.normalize(part) : part;
}

/**
 * A stdio server's command line as a person reads it (a consent question, a dialog): each word
 * quoted where a shell would need it, paths normalized. What runs is the definition, unchanged.
 */
export function readableCommandLine(definition: Pick<StdioServerDefinition, 'command' | 'args'>): string {
  const quote = (part: string) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part));
  return [definition.command, ...definition.args].map((part) => quote(readablePath(part))).join(' ');
}

export type NewEntry = { readonly command: string; readonly args?: string[] } | { readonly url: string };

export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && (line[index + 1] === '"' || line[index + 1] === '\\')) current += line[++index];
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else if (char === '\\' && index + 1 < line.length) {
      current += line[++index];
      inWord = true;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote) throw new CommandLineError(`unclosed ${quote} quote`);
  if (inWord) words.push(current);
  return words;
}

export function entryFromCommandLine(text: string): NewEntry {
  const trimmed = text.trim();
  if (trimmed === '') throw new CommandLineError('enter a command line or a URL');
  if (/^https?:\/\//i.test(trimmed)) {
    try {
      return { url: new URL(trimmed).toString() };
    } catch {
      throw new CommandLineError(`"${trimmed}" is not a valid URL`);
    }
  }
  const [command, ...args] = splitCommandLine(trimmed);
  if (!command) throw new CommandLineError('enter a command line or a URL');
  return args.length > 0 ? { command, args } : { command };
}

/** A name for the new entry: the package or host it points at, e.g. "server-filesystem" or "example-com". */
export function suggestServerName(entry: NewEntry): string {
  let base: string;
  if ('url' in entry) {
    base = new URL(entry.url).hostname;
  } else {
    const launchers = new Set([
      'npx',
      'uvx',
      'pnpm',
      'bunx',
      'pipx',
      'docker',
      'node',
      'python',
      'python3',
      'uv',
      'deno',
      'bun',
      'dlx',
      'run',
      'exec',
      'tool',
    ]);
    const words = [entry.command, ...(entry.args ?? [])].filter((word) => !word.startsWith('-') && !launchers.has(word.toLowerCase()));
    // A package is what names the server, even after a command this list does not know (a
    // mistyped `npx-typo`, a wrapper script): a scoped name, or one that says mcp or server.
    const packageLike = words.find((word) => word.startsWith('@') || /(?:^|[-_/.])(?:mcp|server)(?:[-_/.]|$)/i.test(word));
    base = packageLike ?? words[0] ?? entry.command;
    base = base.split(/[\\/]/).pop() ?? base;
    base = base.replace(/@[^@/]*$/, '').replace(/\.(m?js|py|exe|cmd)$/i, '');
  }
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const core = withoutMcpAffixes(name);
  return (core === 'server' || core === 'mcp' || core === '' ? name : core) || 'server';
}

/**
 * The suggested name, or the first of `name-2`, `name-3`… that no server has yet: the suggestion
 * should add a server, and keeping a taken name replaces one (which the name step says).
 */
export function freeServerName(suggested: string, isTaken: (name: string) => boolean): string {
  if (!isTaken(suggested)) return suggested;
  for (let index = 2; index < 1000; index++) {
    const candidate = `${suggested}-${index}`;
    if (!isTaken(candidate)) return candidate;
  }
  return suggested;
}

/**
 * `server-memory`, `mcp-server-git`, `github-mcp-server`, `fetch-mcp` all name the thing they
 * serve; chat shows the name in every tool (`mcp_memory_…`), so the words that only say "MCP
 * server" are left out.
 */
function withoutMcpAffixes(name: string): string {
  return name.replace(/^(?:mcp-server-|server-|mcp-)/, '').replace(/(?:-mcp-server|-server-mcp|-mcp|-server)$/, '');
}
