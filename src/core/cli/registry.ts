// `mcp-switchboard registry search <text>` and `registry add <name>`: the MCP Registry from a
// terminal. `add` writes the entry into the folder's .vscode/settings.json (comments kept), names
// the inputs it asks for, and says how to check it with doctor.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeJsonValue } from '../base/jsoncFile';
import { inputEnvVarName } from '../config/inputs';
import { DEFAULT_REGISTRY_URL, RegistryClient, RegistryError, type Fetch } from '../registry/registryClient';
import { entryFromRegistry, installOptions } from '../registry/registryEntry';
import type { ServerJson } from '../registry/serverJson';

export const REGISTRY_USAGE = `Usage: mcp-switchboard registry search <text> [--registry URL] [--pages N]
       mcp-switchboard registry add <name> [--folder DIR] [--as NAME] [--remote] [--registry URL]

search lists the latest version of the servers whose name contains <text>, with how each installs
(npm, pypi, oci, nuget, mcpb, remote). add writes the server's entry (npx, uvx, docker run, dnx, or
its URL with --remote) into DIR/.vscode/settings.json under mcpSwitchboard.servers; what it needs
from you becomes \${input:...}, which doctor and serve read from MCP_SWITCHBOARD_INPUT_<ID>.
The registry is --registry, else $MCP_SWITCHBOARD_REGISTRY, else ${DEFAULT_REGISTRY_URL}.
`;

export interface RegistryIo {
  out(text: string): void;
  err(text: string): void;
}

export interface RegistryEnvironment {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  readonly fetch?: Fetch;
}

const MAX_PAGES = 10;

function installKinds(server: ServerJson): string {
  const kinds = [...(server.packages ?? []).map((item) => item.registryType), ...(server.remotes ?? []).map(() => 'remote')];
  return [...new Set(kinds)].join(', ') || '-';
}

async function search(client: RegistryClient, text: string, pages: number, io: RegistryIo): Promise<number> {
  const rows: string[][] = [];
  let cursor: string | undefined;
  for (let page = 0; page < pages; page++) {
    const result = await client.search(text, cursor);
    rows.push(...result.servers.map(({ server }) => [server.name, server.version, installKinds(server), server.description]));
    for (const skipped of result.skipped) io.err(`skipped: ${skipped}\n`);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  if (rows.length === 0) {
    io.out(`No servers in ${client.url} match "${text}".\n`);
    return 0;
  }
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]?.length ?? 0), ['NAME', 'VERSION', 'INSTALL'][column]?.length ?? 0));
  const line = (row: string[]) => `${row.slice(0, 3).map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  ')}  ${row[3] ?? ''}\n`;
  io.out(line(['NAME', 'VERSION', 'INSTALL', 'DESCRIPTION']));
  for (const row of rows) io.out(line(row));
  if (cursor) io.out(`More results: --pages ${pages + 1}\n`);
  return 0;
}

async function add(client: RegistryClient, registryName: string, options: { folder: string; as?: string; remote: boolean }, io: RegistryIo): Promise<number> {
  const { server } = await client.latest(registryName);
  const candidates = installOptions(server).filter((option) => (options.remote ? option.choice.kind === 'remote' : true));
  const usable = candidates.find((option) => !option.unsupported);
  if (!usable) {
    io.err(`${server.name} ${server.version} cannot be added: ${candidates.map((option) => `${option.label}: ${option.unsupported ?? ''}`).join('; ') || (options.remote ? 'it has no remote' : 'it has no package or remote')}\n`);
    return 1;
  }
  const made = entryFromRegistry(server, usable.choice, options.as);
  const settingsFile = path.join(options.folder, '.vscode', 'settings.json');
  writeJsonValue(settingsFile, ['mcpSwitchboard.servers', made.name], made.entry);
  io.out(`Added "${made.name}" (${server.name} ${server.version}, ${usable.label}) to ${settingsFile}.\n`);
  for (const input of made.inputs) io.out(`  it asks for \${input:${input.id}}${input.secret ? ' (secret)' : ''}${input.description ? `: ${input.description}` : ''}; for doctor and serve set ${inputEnvVarName(input.id)}\n`);
  io.out(`Check it: mcp-switchboard doctor --folder ${options.folder}\n`);
  return 0;
}

export async function runRegistry(argv: readonly string[], io: RegistryIo, environment: RegistryEnvironment = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { registry: { type: 'string' }, folder: { type: 'string' }, as: { type: 'string' }, remote: { type: 'boolean' }, pages: { type: 'string' } } });
  } catch (error) {
    io.err(`mcp-switchboard registry: ${(error as Error).message}\n${REGISTRY_USAGE}`);
    return 2;
  }
  const [action, ...rest] = parsed.positionals;
  const env = environment.env ?? process.env;
  const client = new RegistryClient(parsed.values.registry ?? env.MCP_SWITCHBOARD_REGISTRY ?? DEFAULT_REGISTRY_URL, environment.fetch);
  try {
    if (action === 'search') return await search(client, rest.join(' '), Math.min(MAX_PAGES, Math.max(1, Number(parsed.values.pages ?? 1) || 1)), io);
    if (action === 'add' && rest.length === 1 && rest[0]) {
      const folder = path.resolve(environment.cwd ?? process.cwd(), parsed.values.folder ?? '.');
      return await add(client, rest[0], { folder, remote: parsed.values.remote === true, ...(parsed.values.as ? { as: parsed.values.as } : {}) }, io);
    }
  } catch (error) {
    if (error instanceof RegistryError) {
      io.err(`mcp-switchboard registry: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  io.err(REGISTRY_USAGE);
  return 2;
}
