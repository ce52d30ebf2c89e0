// One name, one server. When several sources define the same name the winner is fixed, whatever
// order `mcpSwitchboard.sources` lists them in:
//   settings (folder > workspace > user, as the editor merges scopes) > mcpJson > mcpJsonPortable
//   > vscodeUserMcpJson > cursor > claudeCode > copilotCli > codex > gemini > windsurf > claudeDesktop
//   > team gateways (in the order `mcpSwitchboard.sources` lists them)
// Within one kind the earlier file wins (first workspace folder first, workspace Cursor file before
// the home one). A settings scope overriding another is the editor's normal merge and is silent;
// every other clash is a warning on the losing entry that names both places.

import type { ServerCandidate } from './buildContext';
import { FILE_SOURCES, type ConfigDiagnostic, type FileSourceKind, type ServerSource, type ServerSourceKind } from './types';

// Settings scopes first, then the files in FILE_SOURCES order.
const RANK: Readonly<Record<ServerSourceKind, number>> = {
  folder: 0,
  workspace: 1,
  user: 2,
  ...(Object.fromEntries(FILE_SOURCES.map((kind, index) => [kind, 10 + index])) as Record<FileSourceKind, number>),
  // A team's servers come after everything of the user's own: a name the user uses is theirs.
  team: 100,
};

const SETTINGS_KINDS: ReadonlySet<ServerSourceKind> = new Set(['user', 'workspace', 'folder']);

export interface Deduplicated {
  /** Winners, each at the position where its own source listed it. */
  readonly candidates: readonly ServerCandidate[];
  readonly diagnostics: readonly ConfigDiagnostic[];
}

export function resolveNameClashes(candidates: readonly ServerCandidate[]): Deduplicated {
  const winners = new Map<string, ServerCandidate>();
  for (const candidate of candidates) {
    const current = winners.get(candidate.name);
    if (!current || RANK[candidate.source.kind] < RANK[current.source.kind]) winners.set(candidate.name, candidate);
  }
  const diagnostics: ConfigDiagnostic[] = [];
  for (const candidate of candidates) {
    const winner = winners.get(candidate.name);
    if (!winner || winner === candidate) continue;
    if (SETTINGS_KINDS.has(candidate.source.kind) && SETTINGS_KINDS.has(winner.source.kind)) continue;
    diagnostics.push({
      severity: 'warning',
      server: candidate.name,
      path: candidate.path,
      message: `server "${candidate.name}" from ${describeSource(candidate.source)} is ignored: ${describeSource(winner.source)} also defines it and takes precedence`,
      source: candidate.source,
    });
  }
  const kept = candidates.filter((candidate) => winners.get(candidate.name) === candidate);
  return { candidates: kept, diagnostics };
}

const SOURCE_LABELS: Readonly<Record<ServerSourceKind, string>> = {
  user: 'user settings',
  workspace: 'workspace settings',
  folder: 'folder settings',
  mcpJson: '.vscode/mcp.json',
  mcpJsonPortable: '.mcp.json',
  vscodeUserMcpJson: "the editor's user mcp.json",
  cursor: 'the Cursor config',
  claudeCode: 'the Claude Code config',
  copilotCli: 'the Copilot CLI config',
  codex: 'the Codex config',
  gemini: 'the Gemini CLI settings',
  windsurf: 'the Windsurf config',
  claudeDesktop: 'the Claude Desktop config',
  team: 'the team gateway',
};

/** What a source is called, without its file: `.mcp.json`, `folder settings`. */
export function sourceLabel(source: ServerSource): string {
  return SOURCE_LABELS[source.kind];
}

/** "workspace settings (/repo/.vscode/settings.json)", for messages and the doctor. */
export function describeSource(source: ServerSource): string {
  const label = SOURCE_LABELS[source.kind];
  const where = source.file ?? source.url;
  return where === undefined ? label : `${label} (${where})`;
}
