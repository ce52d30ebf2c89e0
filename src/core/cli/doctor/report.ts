// The doctor's findings as plain data: one row per configured server plus the configuration
// problems that belong to no server. Both output formats and the exit code are derived from this.
// Tools come from the tool catalog, so the doctor shows what chat and the gateway would be offered,
// not only what each server lists.
import type { Tool } from '@modelcontextprotocol/client';
import {
  describeFilterRule,
  type CatalogServer,
  type CatalogSnapshot,
  type CatalogTool,
  type CatalogWarning,
  type FilterRule,
  type OfferedServer,
} from '../../catalog';
import path from 'node:path';
import {
  describeSource,
  inputEnvVarName,
  isWorkspaceDefinedSource,
  sandboxOf,
  type ConfigDiagnostic,
  type SandboxRules,
  type SandboxRulesOrigin,
} from '../../config';
import { isReady, type ServerState, type ServerStateKind } from '../../state';
import type { ServerView } from '../../manager';
import { EXIT_FAILED, EXIT_OK, type ExitCode } from './exitCodes';
import type { SettleOutcome } from './settle';
import type { LoadedWorkspace } from '../folder';

export interface ToolReport {
  /** The upstream name. */
  readonly name: string;
  readonly title?: string;
  /** The catalog's `server__tool` name: what the gateway's /mcp endpoint and chat call it. */
  readonly qualifiedName: string;
  readonly readOnly: boolean;
  /** Whether chat and the gateway are offered the tool. */
  readonly exposed: boolean;
  /** When not exposed: the rule or setting that removed it, as one line (describeFilterRule). */
  readonly filteredBy?: string;
  /** Which kind of rule that was; the table groups budget cuts instead of listing each tool. */
  readonly filterKind?: FilterRule['kind'];
  /** 2025-11-25 tasks: `required`, Switchboard runs a plain call as a task; absent: forbidden or not said. */
  readonly taskSupport?: 'optional' | 'required';
}

export interface ProtocolReport {
  readonly version: string;
  /** `legacy`: a 2025 revision (initialize); `modern`: 2026-07-28 or later. */
  readonly era: 'legacy' | 'modern';
}

/** What a server offers besides tools, as chat is offered it (entries may hide resources or prompts). */
export interface OfferReport {
  readonly resources: readonly { readonly uri: string; readonly name: string; readonly mimeType?: string }[];
  readonly resourceTemplates: readonly { readonly uriTemplate: string; readonly name: string }[];
  readonly prompts: readonly { readonly name: string; readonly arguments: readonly string[] }[];
}

export interface ServerReport {
  readonly name: string;
  /** describeSource(): where the entry was read from. */
  readonly source: string;
  /** `workspace`: a file of the folder (whoever wrote the repository), which needs consent to run; `user`: the user's own. */
  readonly definedBy: 'workspace' | 'user';
  readonly state: ServerStateKind;
  /** From the running state; null for every other state. */
  readonly connectMs: number | null;
  /** The negotiated protocol revision and its era, while running; null otherwise. */
  readonly protocol: ProtocolReport | null;
  /** Why the server is not running; absent for running and disabled servers. */
  readonly error?: string;
  /** Configuration errors and warnings of this entry. */
  readonly diagnostics: readonly ConfigDiagnostic[];
  /** The catalog's tools of this server, in the order the server listed them. */
  readonly tools: readonly ToolReport[];
  /** The capabilities the server declared (tools, resources, prompts, ...), while running; null otherwise. */
  readonly capabilities: readonly string[] | null;
  /** The server's instructions (what it tells a model), while running; null when it gives none. */
  readonly instructions: string | null;
  readonly offer: OfferReport;
  /**
   * As configured: when the server starts and whether it stops when unused. The doctor starts lazy
   * servers too (it checks them); null for an invalid entry.
   */
  readonly lifecycle: { readonly start: 'eager' | 'lazy'; readonly idleStopMinutes: number } | null;
  /** The catalog's warnings about this server (an allow pattern matching nothing, duplicate names, ...). */
  readonly catalogWarnings: readonly string[];
  /** The last stderr lines of a stdio server (most useful for failed ones). */
  readonly stderrTail: readonly string[];
  /** The sandbox a stdio server runs in, with the rules in force; null when it runs unsandboxed. */
  readonly sandbox: { readonly rules: SandboxRules; readonly origin: SandboxRulesOrigin } | null;
}

export interface DoctorReport {
  readonly folder: string;
  readonly settingsFile: string;
  readonly settingsFound: boolean;
  readonly servers: readonly ServerReport[];
  /** Problems that belong to no listed server: source files, `mcpSwitchboard.sources`, ... */
  readonly diagnostics: readonly ConfigDiagnostic[];
  /** Catalog warnings that belong to no server (the maxExposed budget). */
  readonly catalogWarnings: readonly string[];
  /** `mcpSwitchboard.tools.maxExposed` as the catalog applied it. */
  readonly maxExposed: number;
  readonly outcome: SettleOutcome;
  readonly timeoutMs: number;
}

export const STDERR_TAIL_LINES = 5;

export function buildReport(
  workspace: LoadedWorkspace,
  views: readonly ServerView[],
  catalog: CatalogSnapshot,
  outcome: SettleOutcome,
  timeoutMs: number,
  offerOf: (server: string) => OfferedServer | undefined = () => undefined,
): DoctorReport {
  const names = new Set(views.map((view) => view.name));
  const needsInput = new Map(
    workspace.servers.flatMap((server) => ('needsInput' in server && server.needsInput ? [[server.name, server.needsInput] as const] : [])),
  );
  const lifecycles = new Map(
    workspace.servers.flatMap((server) => ('transport' in server ? [[server.name, server.lifecycle] as const] : [])),
  );
  const sandboxes = new Map(
    workspace.servers.flatMap((server) => ('transport' in server ? [[server.name, sandboxOf(server)] as const] : [])),
  );
  const servers = views.map((view): ServerReport => {
    const lifecycle = lifecycles.get(view.name);
    // An invalid server's own list repeats what is in the top-level one; keep each problem once.
    const diagnostics = unique([...view.diagnostics, ...workspace.diagnostics.filter((diagnostic) => diagnostic.server === view.name)]);
    const error = describeProblem(view.name, view.state, diagnostics, timeoutMs, needsInput.get(view.name));
    const tail = view.state.kind === 'error' && view.state.stderrTail.length > 0 ? view.state.stderrTail : view.stderrTail;
    return {
      name: view.name,
      source: describeSource(view.source),
      definedBy: isWorkspaceDefinedSource(view.source, [workspace.folder], path) ? 'workspace' : 'user',
      state: view.state.kind,
      connectMs: view.state.kind === 'running' ? view.state.connectMs : null,
      protocol: view.state.kind === 'running' ? { version: view.state.protocolVersion, era: view.state.era } : null,
      ...(error === undefined ? {} : { error }),
      diagnostics,
      tools: toolReports(
        view,
        catalog.servers.find((server) => server.name === view.name),
      ),
      capabilities: view.state.kind === 'running' ? Object.keys(view.state.capabilities) : null,
      instructions: view.state.kind === 'running' ? (view.state.instructions ?? null) : null,
      offer: offerReport(offerOf(view.name)),
      lifecycle: lifecycle ? { start: lifecycle.start, idleStopMinutes: lifecycle.idleStopMs / 60_000 } : null,
      catalogWarnings: [
        ...(view.state.kind === 'running' ? (view.state.quarantinedTools ?? []).map((tool) => `quarantined: ${tool.problem}`) : []),
        ...serverWarnings(catalog.warnings, view.name),
      ],
      stderrTail: tail.slice(-STDERR_TAIL_LINES),
      sandbox: sandboxReport(sandboxes.get(view.name)),
    };
  });
  const general = workspace.diagnostics.filter((diagnostic) => diagnostic.server === undefined || !names.has(diagnostic.server));
  return {
    folder: workspace.folder,
    settingsFile: workspace.settingsFile,
    settingsFound: workspace.settingsFound,
    servers,
    diagnostics: general,
    catalogWarnings: catalog.warnings
      .filter((warning) => warning.server === undefined || !names.has(warning.server))
      .map((warning) => warning.message),
    maxExposed: catalog.maxExposed,
    outcome,
    timeoutMs,
  };
}

function sandboxReport(sandbox: { rules: SandboxRules; origin: SandboxRulesOrigin } | undefined): ServerReport['sandbox'] {
  return sandbox ? { rules: sandbox.rules, origin: sandbox.origin } : null;
}

/**
 * The catalog's entries in the order the server listed its tools (the catalog keeps them sorted by
 * name). Anything the catalog has that the view does not (a list change racing the report) goes last.
 */
function toolReports(view: ServerView, server: CatalogServer | undefined): ToolReport[] {
  if (!server) return [];
  const position = new Map<string, number>();
  view.tools.forEach((tool, index) => {
    if (!position.has(tool.name)) position.set(tool.name, index);
  });
  const rank = (tool: CatalogTool): number => position.get(tool.name) ?? Number.MAX_SAFE_INTEGER;
  return [...server.tools].sort((a, b) => rank(a) - rank(b)).map(toolReport);
}

function toolReport(entry: CatalogTool): ToolReport {
  const tool: Tool = entry.tool;
  const title = tool.title ?? tool.annotations?.title;
  return {
    name: entry.name,
    ...(title === undefined ? {} : { title }),
    qualifiedName: entry.qualifiedName,
    readOnly: entry.readOnly,
    exposed: entry.exposed,
    ...(entry.filteredBy === undefined
      ? {}
      : { filteredBy: describeFilterRule(entry.filteredBy, entry.server), filterKind: entry.filteredBy.kind }),
    ...taskSupportOf(tool),
  };
}

function taskSupportOf(tool: Tool): Pick<ToolReport, 'taskSupport'> {
  const support = (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === 'optional' || support === 'required' ? { taskSupport: support } : {};
}

function offerReport(offer: OfferedServer | undefined): OfferReport {
  return {
    resources: (offer?.resources ?? []).map((resource) => ({
      uri: resource.uri,
      name: resource.name,
      ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
    })),
    resourceTemplates: (offer?.resourceTemplates ?? []).map((template) => ({ uriTemplate: template.uriTemplate, name: template.name })),
    prompts: (offer?.prompts ?? []).map((prompt) => ({
      name: prompt.name,
      arguments: (prompt.arguments ?? []).map((argument) => argument.name),
    })),
  };
}

/** A malformed schema is already the hidden tool's filteredBy; repeating it as a warning adds nothing. */
function serverWarnings(warnings: readonly CatalogWarning[], server: string): string[] {
  return warnings
    .filter((warning) => warning.server === server && !(warning.kind === 'malformedSchema' && warning.tool !== undefined))
    .map((warning) => warning.message);
}

function describeProblem(
  name: string,
  state: ServerState,
  diagnostics: readonly ConfigDiagnostic[],
  timeoutMs: number,
  inputs: readonly string[] | undefined,
): string | undefined {
  switch (state.kind) {
    case 'running':
    case 'idle':
    case 'disabled':
      return undefined;
    case 'error':
      return state.message;
    case 'invalid': {
      const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
      const first = errors[0];
      if (!first) return 'the entry is invalid';
      return `${first.path}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
    }
    case 'blocked':
      // The CLI cannot prompt; tell the user which variable answers each input.
      return inputs && inputs.length > 0 ? `${state.detail} (set ${inputs.map(inputEnvVarName).join(', ')})` : state.detail;
    case 'needsSignIn':
      return `needs sign-in: run mcp-switchboard login ${shellWord(name)}${state.reason === 'scope' && state.scope ? ` (the server asks for scope "${state.scope}")` : ''}`;
    case 'starting':
      return `still starting when the ${timeoutMs} ms timeout passed`;
    case 'reconnecting':
      return `still reconnecting (attempt ${state.attempt} of ${state.maxAttempts}) when the ${timeoutMs} ms timeout passed: ${state.lastError}`;
    case 'stopped':
      return 'stopped';
  }
}

/** A server name as one shell word, quoted only when it needs to be. */
function shellWord(name: string): string {
  return /^[A-Za-z0-9_.@%+=:,/-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`;
}

function unique(diagnostics: readonly ConfigDiagnostic[]): ConfigDiagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((diagnostic) => {
    const key = JSON.stringify([
      diagnostic.severity,
      diagnostic.path,
      diagnostic.message,
      diagnostic.source.file,
      diagnostic.line,
      diagnostic.column,
    ]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A server counts when it is meant to run: everything but `disabled`, invalid entries included. */
export function isFailing(server: ServerReport): boolean {
  return !isReady(server.state) && server.state !== 'disabled';
}

/**
 * 0 when every enabled server is running. A configuration error outside any listed server (a broken
 * `.vscode/mcp.json`, say) also fails: the servers it should have contributed are not running.
 */
export function exitCodeFor(report: DoctorReport): ExitCode {
  const configErrors = report.diagnostics.some((diagnostic) => diagnostic.severity === 'error');
  return report.servers.some(isFailing) || configErrors ? EXIT_FAILED : EXIT_OK;
}
