// Share with Other Agents: one entry for Switchboard's gateway written into another agent's config:
// either `serve --stdio`, which the agent launches itself, or an HTTP entry for a `serve` the user
// runs (on a fixed port, with a token kept in a 0600 file),: the portable .mcp.json, Claude
// Code's ~/.claude.json, Codex's config.toml or Gemini CLI's settings.json. Every file gets the
// token as an environment variable, never the token itself, so a config that ends up in a
// repository leaks nothing. Then every agent on the machine uses the same servers.
import fs from 'node:fs';
import path from 'node:path';
import { readConfigText, writeJsonValue } from '../base/jsoncFile';
import { exportEntry, type ExportFormat } from '../config';
import { defaultGatewayTokenFile, TOKEN_ENV_VAR } from './gatewayToken';

export const SHARE_TARGETS = ['mcpJsonPortable', 'claudeCode', 'codex', 'gemini'] as const;
export type ShareTarget = (typeof SHARE_TARGETS)[number];

export const SHARE_TITLES: Readonly<Record<ShareTarget, string>> = {
  mcpJsonPortable: "This folder's .mcp.json (the editor's agent host, Claude Code, Copilot CLI)",
  claudeCode: 'Claude Code, for every project (~/.claude.json)',
  codex: 'Codex (~/.codex/config.toml)',
  gemini: 'Gemini CLI (~/.gemini/settings.json)',
};

/** A port outside the usual development ranges; any free port works. */
export const DEFAULT_SHARE_PORT = 47_800;
export const SHARED_ENTRY_NAME = 'switchboard';

export interface ShareRequest {
  readonly target: ShareTarget;
  readonly port: number;
  /** The folder serve runs for (its settings configure the servers); the portable file goes here. */
  readonly folder: string;
  readonly userHome: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * How to start Switchboard's CLI (`node …/cli.js`): the entry then launches `serve --stdio` for
   * the folder, which the agent starts and stops itself; nothing to run by hand, no token. Without
   * it, the entry is an HTTP one for a `serve` the user runs.
   */
  readonly launch?: { readonly command: string; readonly args: readonly string[] };
  /**
   * How the user runs this CLI in a terminal, for the steps (`mcp-switchboard` when it is on PATH;
   * in a checkout `node …/dist/cli.js`; in the editor, its launcher). Default: `mcp-switchboard`.
   */
  readonly cli?: string;
}

export interface ShareResult {
  readonly file: string;
  readonly outcome: 'added' | 'replaced' | 'present';
  /** What the user does next: the variable to set, the gateway to run. */
  readonly steps: readonly string[];
}

const FORMATS: Readonly<Record<ShareTarget, ExportFormat>> = {
  mcpJsonPortable: 'claudeCode',
  claudeCode: 'claudeCode',
  codex: 'codex',
  gemini: 'gemini',
};

export function shareFile(request: Pick<ShareRequest, 'target' | 'folder' | 'userHome' | 'env'>): string {
  switch (request.target) {
    case 'mcpJsonPortable':
      return path.join(request.folder, '.mcp.json');
    case 'claudeCode':
      return path.join(request.env.CLAUDE_CONFIG_DIR ?? request.userHome, '.claude.json');
    case 'codex':
      return path.join(request.env.CODEX_HOME ?? path.join(request.userHome, '.codex'), 'config.toml');
    case 'gemini':
      return path.join(request.userHome, '.gemini', 'settings.json');
  }
}

/** Appends the table to a TOML file; one that has it already is left alone (no TOML rewriting). */
function writeToml(file: string, table: string): 'added' | 'present' {
  const text = readConfigText(file);
  if (new RegExp(`^\\s*\\[mcp_servers\\.${SHARED_ENTRY_NAME}\\]`, 'm').test(text)) return 'present';
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${text === '' ? '' : '\n'}${table}`);
  return 'added';
}

/** The npm package an agent on any machine starts Switchboard from. */
export const CLI_PACKAGE = 'mcp-switchboard';

export function shareGateway(request: ShareRequest): ShareResult {
  const { launch } = request;
  // The folder's .mcp.json is committed and read on other machines: nothing of this one goes in it
  // (not this machine's Node, launcher or folder path), so its entry starts the package from npm
  // for the folder the agent runs in.
  const portable = request.target === 'mcpJsonPortable';
  const entry = launch
    ? portable
      ? { type: 'stdio', command: 'npx', args: ['-y', CLI_PACKAGE, 'serve', '--stdio', '--folder', '.'] }
      : { type: 'stdio', command: launch.command, args: [...launch.args, 'serve', '--stdio', '--folder', request.folder] }
    : {
        type: 'http',
        url: `http://127.0.0.1:${request.port}/mcp`,
        headers: { Authorization: `Bearer \${env:${TOKEN_ENV_VAR}}` },
      };
  const exported = exportEntry(SHARED_ENTRY_NAME, entry, FORMATS[request.target], { userHome: request.userHome });
  const file = shareFile(request);
  const outcome =
    request.target === 'codex'
      ? writeToml(file, exported.text)
      : // JSON files keep their comments and everything else; the entry is added or replaced.
        writeJsonValue(
          file,
          ['mcpServers', SHARED_ENTRY_NAME],
          (JSON.parse(exported.text) as { mcpServers: Record<string, unknown> }).mcpServers[SHARED_ENTRY_NAME],
        );
  if (launch) {
    return {
      file,
      outcome,
      steps: [
        portable
          ? `Nothing to run: an agent that reads this file (on any machine) starts Switchboard from npm (npx ${CLI_PACKAGE} serve --stdio) for the folder it runs in, and stops it when it ends. The folder's own servers run once each person has allowed them (in the editor, or with ${CLI_PACKAGE} doctor on a terminal).`
          : `Nothing to run: the agent starts Switchboard (serve --stdio) for ${request.folder} when it needs it, and stops it when it ends. The folder's own servers run once you have allowed them (in the editor, or with ${request.cli ?? CLI_PACKAGE} doctor on a terminal).`,
      ],
    };
  }
  const tokenFile = defaultGatewayTokenFile(request.env as NodeJS.ProcessEnv);
  return {
    file,
    outcome,
    steps: [
      `Run the gateway (it reads the servers of ${request.folder}): ${request.cli ?? CLI_PACKAGE} serve --folder ${JSON.stringify(request.folder)} --port ${request.port} --token-file ${JSON.stringify(tokenFile)}`,
      `Give the agent its token, in the shell profile it starts from: export ${TOKEN_ENV_VAR}="$(cat ${JSON.stringify(tokenFile)})"`,
    ],
  };
}
