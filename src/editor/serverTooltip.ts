import * as vscode from 'vscode';
import os from 'node:os';
import { describeSandboxRules, describeSource, launchOf, sandboxOf, type SandboxRulesOrigin, type ServerSource } from '../core/config';
import { redactSecrets } from '../core/base/logging';
import type { OfferedServer } from '../core/catalog';
import type { ServerView } from '../core/manager';
import { describeState, STATE_MESSAGE_MAX, toolsText, type StateContext } from '../core/presentation';
import { isReady } from '../core/state';
import type { DevRestart } from './devWatchers';

const STDERR_LINES = 10;
const MESSAGE_LINES = 30;

/**
 * The extension host's PATH starts with folders of the editor itself (code-server's remote CLI):
 * they are searched, but a user looking for their own folders should know which are not theirs.
 */
function markEditorFolder(line: string): string {
  const appRoot = vscode.env.appRoot;
  return appRoot && line.startsWith(appRoot) ? `${line}   (the editor's own)` : line;
}

function fence(lines: readonly string[]): string {
  // A fence longer than any backtick run inside keeps stderr from breaking out of the block.
  const longest = Math.max(2, ...lines.map((line) => (line.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0)));
  const marks = '`'.repeat(longest + 1);
  return `${marks}text\n${lines.join('\n')}\n${marks}`;
}

/** Command line or URL, with every known secret replaced and header values never shown. */
export function connectionSummary(view: ServerView): string {
  const definition = launchOf(view.definition);
  if (!definition) return '';
  if (definition.transport === 'stdio') {
    return redactSecrets([definition.command, ...definition.args].join(' '), definition.secrets);
  }
  const headers = Object.keys(definition.headers);
  return `${redactSecrets(definition.url, definition.secrets)}${headers.length ? ` (headers: ${headers.join(', ')})` : ''}`;
}

/** `11 tools · 3 resources · 1 template · 2 prompts` (`1 of 11 offered · …`), leaving out what the server does not offer. */
export function offerSummary(counts: StateContext, offer: OfferedServer | undefined): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const parts = [toolsText(counts.tools ?? 0, counts.offered, counts.bySearch)];
  if (offer?.resources.length) parts.push(count(offer.resources.length, 'resource'));
  if (offer?.resourceTemplates.length) parts.push(count(offer.resourceTemplates.length, 'template'));
  if (offer?.prompts.length) parts.push(count(offer.prompts.length, 'prompt'));
  return parts.join(' · ');
}

/** `counts`: the server's tools (for an idle one, from the cache) and how many chat is offered. */
export function serverTooltip(
  view: ServerView,
  offer: OfferedServer | undefined,
  counts: StateContext,
  restart?: DevRestart,
  shared?: number,
): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString('', true);
  markdown.supportHtml = false;
  const state = view.state;
  markdown.appendMarkdown(`**${escape(view.name)}** — ${escape(describeState(state, Date.now(), counts))}\n\n`);
  const rows: Array<[string, string]> = [];
  // A server shared through the machine host is shown as what it runs there, not as the host's URL.
  const definition = launchOf(view.definition);
  if (definition) {
    rows.push([
      'Transport',
      definition.transport === 'stdio'
        ? 'stdio'
        : definition.transport === 'http'
          ? `streamable HTTP${definition.sseFallback ? ' (SSE fallback)' : ''}`
          : 'SSE',
    ]);
    rows.push([definition.transport === 'stdio' ? 'Command' : 'URL', code(connectionSummary(view))]);
    const hosted = view.definition?.transport === 'http' ? view.definition.hosted : undefined;
    const folder = hosted ? (hosted.cwd ?? os.homedir()) : definition.transport === 'stdio' ? definition.cwd : undefined;
    if (folder) rows.push(['Folder', `\`${folder}\``]);
    const sandbox = sandboxOf(definition);
    if (sandbox) rows.push(['Sandboxed', `${escape(describeSandboxRules(sandbox.rules))} (rules: ${RULES_FROM[sandbox.origin]})`]);
    if (shared !== undefined)
      rows.push([
        'Shared',
        `one process in the machine host, for ${shared === 1 ? 'this window alone' : `${shared} windows and agents`} now`,
      ]);
  }
  if (state.kind === 'running') {
    rows.push(['Server', `${escape(state.serverInfo.name)} ${escape(state.serverInfo.version)}`]);
    rows.push([
      'Protocol',
      `${state.protocolVersion} · ${state.era === 'modern' ? 'modern era (sessionless)' : 'legacy era (initialize and sessions)'}`,
    ]);
    rows.push(['Capabilities', Object.keys(state.capabilities).join(', ') || 'none']);
    rows.push(['Offers', offerSummary(counts, offer)]);
    rows.push(['Connected since', new Date(state.since).toLocaleString()]);
  }
  if (state.kind === 'idle') {
    rows.push(['Offers', `${offerSummary(counts, offer)} (cached)`]);
    rows.push([state.reason === 'unused' ? 'Stopped while unused since' : 'Idle since', new Date(state.since).toLocaleString()]);
  }
  const instructions = state.kind === 'running' ? state.instructions : offer?.instructions;
  if (instructions) rows.push(['Instructions', `${escape(firstLines(instructions))} (chat gets them in full)`]);
  rows.push(['Source', sourceText(view.source)]);
  if (definition?.devWatch?.length) rows.push(['Restarts on changes to', definition.devWatch.map(code).join(', ')]);
  if (restart) rows.push(['Restarted by dev.watch', `${escape(restart.file)} changed (${new Date(restart.at).toLocaleTimeString()})`]);
  if (view.tasks.length > 0)
    rows.push(['Tasks running', view.tasks.map((task) => `${escape(task.tool)}: ${escape(task.message ?? task.status)}`).join('; ')]);
  if (state.kind === 'reconnecting') rows.push(['Last error', escape(state.lastError)]);
  if (state.kind === 'blocked' && state.reason === 'consentDenied') {
    rows.push([
      'Consent',
      'you denied it, or closed the dialog — click **Allow…** on the row (or **Start**) to be asked again for this server alone',
    ]);
  }
  if (state.kind === 'needsSignIn') {
    rows.push(['Sign-in', `${escape(state.detail)} — click **Sign In** on the row`]);
    if (state.scope) rows.push(['Asks for scope', code(state.scope)]);
  }
  markdown.appendMarkdown(rows.map(([key, value]) => `- **${key}:** ${value}`).join('\n'));
  if (state.kind === 'invalid') {
    markdown.appendMarkdown('\n\n**Configuration problems**\n\n');
    markdown.appendMarkdown(state.diagnostics.map((d) => `- ${d.severity}: \`${d.path}\` ${escape(d.message)}`).join('\n'));
  }
  if (state.kind === 'error') appendErrorDetails(markdown, state.message);
  const quarantined = state.kind === 'running' ? (state.quarantinedTools ?? []) : [];
  if (quarantined.length > 0) {
    markdown.appendMarkdown('\n\n**Quarantined tools** (the others work)\n\n');
    markdown.appendMarkdown(quarantined.map((tool) => `- \`${tool.name.replace(/`/g, "'")}\`: ${escape(tool.problem)}`).join('\n'));
  }
  // A healthy server's stderr is chatter (npm's warnings, banners): it is in the server's log. The
  // tooltip shows it where it explains something: a server that failed, is retrying or is starting.
  const stderr = isReady(state.kind) ? [] : view.stderrTail.slice(-STDERR_LINES);
  if (stderr.length > 0) {
    markdown.appendMarkdown(`\n\n**Last ${stderr.length} stderr lines**\n\n`);
    markdown.appendMarkdown(fence(stderr));
  }
  return markdown;
}

/** What the heading (one line, cut at 120 characters) leaves out of an error: the rest, in full. */
function appendErrorDetails(markdown: vscode.MarkdownString, message: string): void {
  const [first = '', ...rest] = message.split('\n');
  if (rest.length > 0) {
    // The folders searched for a missing command, a hint: one per line.
    markdown.appendMarkdown('\n\n**Details**\n\n');
    markdown.appendMarkdown(fence(rest.slice(0, MESSAGE_LINES).map(markEditorFolder)));
  } else if (first.length > STATE_MESSAGE_MAX) {
    // A long one-line message (the sandbox's reason and fix) whose end the heading cut off.
    markdown.appendMarkdown('\n\n**Details**\n\n');
    markdown.appendText(first.slice(0, 2_000));
  }
}

/** The first three lines, at most 300 characters: enough to recognise them. */
function firstLines(text: string): string {
  const lines = text
    .trim()
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const head = lines.slice(0, 3).join(' / ');
  const cut = head.length > 300 ? `${head.slice(0, 299)}…` : head;
  return lines.length > 3 && !cut.endsWith('…') ? `${cut} …` : cut;
}

const RULES_FROM: Record<SandboxRulesOrigin, string> = {
  entry: 'the entry',
  file: "its mcp.json's sandbox block",
  userDefault: 'mcpSwitchboard.sandbox.rules',
  builtIn: 'built-in: its folder, no network',
  workspaceConsent: 'Run Sandboxed',
};

/** A URL in a code span: escaped text would be auto-linked with its backslashes showing. */
function sourceText(source: ServerSource): string {
  if (source.url === undefined) return escape(describeSource(source));
  return `${escape(describeSource({ kind: source.kind }))} (${code(source.url)})`;
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-!|<>]/g, (char) => `\\${char}`);
}
