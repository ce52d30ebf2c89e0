// `mcp-switchboard registry search <text>` and `registry add <name>`: the MCP Registry from a
// terminal. `add` writes the entry into the folder's .vscode/settings.json (comments kept), names
// the inputs it asks for, and says how to check it with doctor.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { displayText } from '../base/displayText';
import { BrokenConfigFileError, hasJsonValue, readConfigText, writeJsonValue } from '../base/jsoncFile';
import { inputEnvVarName } from '../config';
import {
  DEFAULT_REGISTRY_URL,
  RegistryClient,
  RegistryError,
  type Fetch,
  describeEntryLaunch,
  entryFromRegistry,
  installOptions,
  type ServerJson,
} from '../registry';
import type { Confirm } from './terminalQuestion';

export const REGISTRY_USAGE = `Usage: mcp-switchboard registry search <text> [--registry URL] [--pages N]
       mcp-switchboard registry add <name> [--folder DIR] [--as NAME] [--remote] [--replace] [--registry URL]

search lists the latest version of the servers whose name contains <text>, with how each installs
(npm, pypi, oci, nuget, mcpb, remote). add writes the server's entry (npx, uvx, docker run, dnx, or
its URL with --remote) into DIR/.vscode/settings.json under mcpSwitchboard.servers; what it needs
from you becomes \${input:...}, which doctor and serve read from MCP_SWITCHBOARD_INPUT_<ID>.
add prints the command line and environment it writes, and asks first on a terminal. An entry of
the same name is replaced only when you say so (at the question, or with --replace).
The registry is --registry, else $MCP_SWITCHBOARD_REGISTRY, else ${DEFAULT_REGISTRY_URL}.
`;

export interface RegistryIo {
  out(text: string): void;
  err(text: string): void;
  /** Asks the user; absent without a terminal. */
  readonly confirm?: Confirm;
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
    // Every cell is the registry's text: shown inert, and short enough to keep the table a table.
    rows.push(
      ...result.servers.map(({ server }) => [
        displayText(server.name, 80),
        displayText(server.version, 40),
        displayText(installKinds(server), 40),
        displayText(server.description, 300),
      ]),
    );
    for (const skipped of result.skipped) io.err(`skipped: ${displayText(skipped, 300)}\n`);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  if (rows.length === 0) {
    io.out(`No servers in ${client.url} match "${displayText(text)}".\n`);
    return 0;
  }
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0), ['NAME', 'VERSION', 'INSTALL'][column]?.length ?? 0),
  );
  const line = (row: string[]) =>
    `${row
      .slice(0, 3)
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')}  ${row[3] ?? ''}\n`;
  io.out(line(['NAME', 'VERSION', 'INSTALL', 'DESCRIPTION']));
  for (const row of rows) io.out(line(row));
  if (cursor) io.out(`More results: --pages ${pages + 1}\n`);
  return 0;
}

async function add(
  client: RegistryClient,
  registryName: string,
  options: { folder: string; as?: string; remote: boolean; replace: boolean },
  io: RegistryIo,
): Promise<number> {
  const { server } = await client.latest(registryName);
  const shown = `${displayText(server.name)} ${displayText(server.version, 40)}`;
  const candidates = installOptions(server).filter((option) => (options.remote ? option.choice.kind === 'remote' : true));
  const usable = candidates.find((option) => !option.unsupported);
  if (!usable) {
    io.err(
      `${shown} cannot be added: ${displayText(candidates.map((option) => `${option.label}: ${option.unsupported ?? ''}`).join('; ') || (options.remote ? 'it has no remote' : 'it has no package or remote'))}\n`,
    );
    return 1;
  }
  const made = entryFromRegistry(server, usable.choice, options.as);
  if (made.refused.length > 0) {
    io.err(
      `${shown} was not added: its registry entry is not safe to run as it stands:\n${made.refused.map((problem) => `  ${displayText(problem, 300)}\n`).join('')}Add it by hand (see the README's "Add a server") only if you trust what it runs.\n`,
    );
    return 1;
  }
  const settingsFile = path.join(options.folder, '.vscode', 'settings.json');
  const location = ['mcpSwitchboard.servers', made.name];
  let existing: boolean;
  try {
    existing = hasJsonValue(readConfigText(settingsFile), location);
  } catch (error) {
    io.err(`mcp-switchboard registry: cannot read ${settingsFile}: ${(error as Error).message}\n`);
    return 1;
  }
  io.out(
    `${shown} (${displayText(usable.label, 200)}) as "${made.name}":\n${describeEntryLaunch(made.entry)
      .map((line) => `  ${displayText(line, 2_000)}\n`)
      .join('')}`,
  );
  if (existing && !options.replace) {
    const replace = io.confirm ? await io.confirm(`A server named "${made.name}" already exists in ${settingsFile}. Replace it?`) : false;
    if (!replace) {
      io.err(
        `Nothing was written: "${made.name}" already exists in ${settingsFile}. Choose another name with --as NAME, or replace it with --replace.\n`,
      );
      return 1;
    }
  } else if (io.confirm && !(await io.confirm(`Add it to ${settingsFile}?`))) {
    io.err('Nothing was written.\n');
    return 1;
  }
  try {
    writeJsonValue(settingsFile, location, made.entry);
  } catch (error) {
    if (!(error instanceof BrokenConfigFileError)) throw error;
    io.err(`mcp-switchboard registry: ${error.message}\n`);
    return 1;
  }
  io.out(`${existing ? 'Replaced' : 'Added'} "${made.name}" in ${settingsFile}.\n`);
  for (const input of made.inputs)
    io.out(
      `  it asks for \${input:${input.id}}${input.secret ? ' (secret)' : ''}${input.description ? `: ${displayText(input.description, 300)}` : ''}; for doctor and serve set ${inputEnvVarName(input.id)}\n`,
    );
  io.out(`Check it: mcp-switchboard doctor --folder ${options.folder}\n`);
  return 0;
}

export async function runRegistry(argv: readonly string[], io: RegistryIo, environment: RegistryEnvironment = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        registry: { type: 'string' },
        folder: { type: 'string' },
        as: { type: 'string' },
        remote: { type: 'boolean' },
        replace: { type: 'boolean' },
        pages: { type: 'string' },
      },
    });
  } catch (error) {
    io.err(`mcp-switchboard registry: ${(error as Error).message}\n${REGISTRY_USAGE}`);
    return 2;
  }
  const [action, ...rest] = parsed.positionals;
  const env = environment.env ?? process.env;
  const client = new RegistryClient(parsed.values.registry ?? env.MCP_SWITCHBOARD_REGISTRY ?? DEFAULT_REGISTRY_URL, environment.fetch);
  try {
    if (action === 'search')
      return await search(client, rest.join(' '), Math.min(MAX_PAGES, Math.max(1, Number(parsed.values.pages ?? 1) || 1)), io);
    if (action === 'add' && rest.length === 1 && rest[0]) {
      const folder = path.resolve(environment.cwd ?? process.cwd(), parsed.values.folder ?? '.');
      return await add(
        client,
        rest[0],
        {
          folder,
          remote: parsed.values.remote === true,
          replace: parsed.values.replace === true,
          ...(parsed.values.as ? { as: parsed.values.as } : {}),
        },
        io,
      );
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
