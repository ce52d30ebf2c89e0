// `mcp-switchboard share <agent>`: the gateway's entry in another agent's config (see
// core/share/shareGateway.ts), and the two steps that make it work.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SHARE_PORT, shareGateway, type ShareTarget } from '../share';

const TARGETS: Readonly<Record<string, ShareTarget>> = {
  portable: 'mcpJsonPortable',
  'claude-code': 'claudeCode',
  codex: 'codex',
  gemini: 'gemini',
};

export const SHARE_USAGE = `Usage: mcp-switchboard share <portable|claude-code|codex|gemini> [--folder DIR] [--port N | --stdio]

Writes one entry, "switchboard", for the gateway that \`serve\` runs on 127.0.0.1:<port> (default
${DEFAULT_SHARE_PORT}) into that agent's config: DIR/.mcp.json, ~/.claude.json, ~/.codex/config.toml
or ~/.gemini/settings.json. The entry names the token as the variable MCP_SWITCHBOARD_TOKEN, never
the token itself, so the file is safe to commit. Then run serve with --token-file, as printed.
With --stdio the entry launches \`mcp-switchboard serve --stdio --folder DIR\` instead: the agent
starts and stops it itself, and there is nothing to run and no token. In the portable .mcp.json,
which is committed and read on other machines, that entry is \`npx -y mcp-switchboard serve --stdio
--folder .\`: nothing of this machine in it.

An editor that runs Switchboard and also reads .mcp.json (VS Code 1.140 and later) would start
that entry too and list every tool twice: there, share with Claude Code's own file instead.
`;

export function runShare(
  argv: readonly string[],
  io: { out(text: string): void; err(text: string): void },
  environment: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { folder: { type: 'string' }, port: { type: 'string' }, stdio: { type: 'boolean' } },
    });
  } catch (error) {
    io.err(`mcp-switchboard share: ${(error as Error).message}\n${SHARE_USAGE}`);
    return 2;
  }
  const target = TARGETS[parsed.positionals[0] ?? ''];
  const port = Number(parsed.values.port ?? DEFAULT_SHARE_PORT);
  if (!target || parsed.positionals.length !== 1 || !Number.isInteger(port) || port < 1 || port > 65535) {
    io.err(SHARE_USAGE);
    return 2;
  }
  const env = environment.env ?? process.env;
  const folder = path.resolve(environment.cwd ?? process.cwd(), parsed.values.folder ?? '.');
  if (parsed.values.stdio && parsed.values.port !== undefined) {
    io.err(`mcp-switchboard share: --port applies to the HTTP entry, not to --stdio\n${SHARE_USAGE}`);
    return 2;
  }
  // This very CLI, as the agent will start it (the script behind the `mcp-switchboard` link).
  const launch = parsed.values.stdio ? { command: process.execPath, args: [fs.realpathSync(process.argv[1] ?? '')] } : undefined;
  const result = shareGateway({
    target,
    port,
    folder,
    userHome: env.HOME ?? os.homedir(),
    env,
    cli: terminalCommand(env),
    launch,
  });
  io.out(
    `${result.outcome === 'present' ? 'Already there' : result.outcome === 'replaced' ? 'Replaced' : 'Added'}: "switchboard" in ${result.file}.\nThen:\n${result.steps.map((step, index) => `  ${index + 1}. ${step}\n`).join('')}`,
  );
  if (target === 'mcpJsonPortable')
    io.err(
      "Note: an editor that runs Switchboard and reads .mcp.json too (VS Code 1.140 and later) starts this entry as well and lists every tool twice; there, share with Claude Code's own file (share claude-code) instead.\n",
    );
  return 0;
}

/**
 * How this CLI is typed in a terminal: `mcp-switchboard` where that name on PATH runs this very
 * script (an npm install), else `node <this script>` (a checkout, npx's cache): a step the user
 * copies must run.
 */
export function terminalCommand(env: NodeJS.ProcessEnv = process.env, script: string | undefined = process.argv[1]): string {
  if (!script) return 'mcp-switchboard';
  const real = (file: string): string | undefined => {
    try {
      return fs.realpathSync(file);
    } catch {
      return undefined;
    }
  };
  const self = real(script);
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => real(path.join(dir, process.platform === 'win32' ? 'mcp-switchboard.cmd' : 'mcp-switchboard')))
    .find((found) => found !== undefined);
  if (self !== undefined && onPath === self) return 'mcp-switchboard';
  const quoted = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word));
  return `node ${quoted(self ?? script)}`;
}
