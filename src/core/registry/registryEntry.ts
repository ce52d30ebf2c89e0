// A registry server (a package or a remote of its server.json) as a Switchboard entry: `npx`, `uvx`,
// `docker run`, `dnx` or a `url`. What the user must supply (a required environment variable,
// header, argument or URL variable without a value) becomes `${input:...}`, asked once and kept in
// the keychain; a secret one gets an id that the prompt masks.
import { isSecretName } from '../config';
import type { KeyValueInput, PackageArgument, RegistryInput, RegistryPackage, RegistryRemote, ServerJson } from './serverJson';

export type InstallChoice =
  | { readonly kind: 'package'; readonly index: number; readonly package: RegistryPackage }
  | { readonly kind: 'remote'; readonly index: number; readonly remote: RegistryRemote };

export interface InstallOption {
  readonly choice: InstallChoice;
  /** `npm @scope/pkg 1.2.0`, `remote streamable-http https://…`. */
  readonly label: string;
  /** Why Switchboard cannot run it, if it cannot. */
  readonly unsupported?: string;
}

export interface RegistryEntry {
  /** A name for the entry: the registry name's last part, without "mcp-server" words. */
  readonly name: string;
  readonly entry: Record<string, unknown>;
  /**
   * Why the entry must not be written, each naming the server.json field: what would turn the
   * launcher into a shell, load code from elsewhere, or is not a URL to connect to. Empty: fine.
   */
  readonly refused: readonly string[];
  /** The `${input:}` ids the entry asks for, with what the registry says of each. */
  readonly inputs: readonly { readonly id: string; readonly description?: string; readonly secret: boolean }[];
}

const RUNNERS: Readonly<Record<string, string>> = { npm: 'npx', pypi: 'uvx', oci: 'docker', nuget: 'dnx' };

/** Every way the server can be installed, packages first, each saying if Switchboard can run it. */
export function installOptions(server: ServerJson): InstallOption[] {
  const packages = (server.packages ?? []).map((item, index): InstallOption => {
    const label = `${item.registryType} ${item.identifier}${item.version ? ` ${item.version}` : ''}`;
    if (!RUNNERS[item.registryType]) {
      return {
        choice: { kind: 'package', index, package: item },
        label,
        unsupported: `a ${item.registryType} package, which Switchboard cannot run: install it yourself, then Add Server with its command`,
      };
    }
    if (item.transport.type !== 'stdio') {
      return {
        choice: { kind: 'package', index, package: item },
        label,
        unsupported: `it serves ${item.transport.type} on a local port: start it yourself, then Add Server with its URL`,
      };
    }
    return { choice: { kind: 'package', index, package: item }, label };
  });
  const remotes = (server.remotes ?? []).map((remote, index): InstallOption => ({
    choice: { kind: 'remote', index, remote },
    label: `remote ${remote.type} ${remote.url}`,
  }));
  return [...packages, ...remotes];
}

export function registryServerName(registryName: string): string {
  const last = (registryName.split('/').pop() ?? registryName).toLowerCase().replace(/[^a-z0-9_.-]+/g, '-');
  const core = last.replace(/^(?:mcp-server-|server-|mcp-)/, '').replace(/(?:-mcp-server|-server-mcp|-mcp|-server)$/, '');
  return core && core !== 'mcp' && core !== 'server' ? core : last;
}

class Inputs {
  readonly asked: Array<{ id: string; description?: string; secret: boolean }> = [];

  constructor(private readonly server: string) {}

  /** `${input:server-name}`, masked when the registry says it is secret. */
  ask(label: string, input: RegistryInput): string {
    const base = `${this.server}-${label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}`;
    const secret = input.isSecret === true;
    const id = secret && !isSecretName(base) ? `${base}-secret` : base;
    if (!this.asked.some((item) => item.id === id))
      this.asked.push({ id, secret, ...(input.description ? { description: input.description } : {}) });
    return `\${input:${id}}`;
  }

  /** The value to write, or undefined when an optional input has none. */
  valueOf(label: string, input: RegistryInput): string | undefined {
    if (input.value !== undefined) return this.fill(input.value, input.variables ?? {});
    if (input.isRequired) return this.ask(label, input);
    return input.default;
  }

  /** `{name}` in a value or URL: a variable, asked for unless it has a value or default. */
  fill(template: string, variables: Readonly<Record<string, RegistryInput>>): string {
    return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      // Own keys only: `{constructor}` is not a variable of every template.
      const variable = Object.hasOwn(variables, name) ? variables[name] : undefined;
      if (!variable) return whole;
      return variable.value ?? variable.default ?? this.ask(name, { ...variable, isRequired: true });
    });
  }
}

function argumentsOf(list: readonly PackageArgument[] | undefined, inputs: Inputs): string[] {
  const out: string[] = [];
  for (const argument of list ?? []) {
    const value = inputs.valueOf(argument.valueHint ?? argument.name ?? 'argument', argument);
    if (argument.type === 'named' && argument.name) {
      if (value !== undefined) out.push(argument.name, value);
      else if (argument.isRequired) out.push(argument.name);
    } else if (value !== undefined) {
      out.push(value);
    }
  }
  return out;
}

function envOf(list: readonly KeyValueInput[] | undefined, inputs: Inputs): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of list ?? []) {
    const value = inputs.valueOf(variable.name, variable);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

function packageEntry(item: RegistryPackage, inputs: Inputs): Record<string, unknown> {
  const runtime = argumentsOf(item.runtimeArguments, inputs);
  const args = argumentsOf(item.packageArguments, inputs);
  const env = envOf(item.environmentVariables, inputs);
  const versioned = (separator: string) => (item.version ? `${item.identifier}${separator}${item.version}` : item.identifier);
  const withEnv = (entry: Record<string, unknown>) => (Object.keys(env).length > 0 ? { ...entry, env } : entry);
  switch (item.registryType) {
    case 'npm':
      return withEnv({ command: 'npx', args: [...runtime, '-y', versioned('@'), ...args] });
    case 'pypi':
      return withEnv({ command: 'uvx', args: [...runtime, versioned('=='), ...args] });
    case 'nuget':
      return withEnv({ command: 'dnx', args: [...runtime, versioned('@'), '--yes', ...(args.length > 0 ? ['--', ...args] : [])] });
    case 'oci': {
      // `-e NAME` takes the value from docker's own environment, which the entry's env sets.
      const image = item.version && !/:[^/]+$/.test(item.identifier) ? `${item.identifier}:${item.version}` : item.identifier;
      return withEnv({
        command: 'docker',
        args: ['run', '-i', '--rm', ...runtime, ...Object.keys(env).flatMap((name) => ['-e', name]), image, ...args],
      });
    }
    default:
      throw new Error(`a ${item.registryType} package cannot be run by Switchboard`);
  }
}

function remoteEntry(remote: RegistryRemote, inputs: Inputs): Record<string, unknown> {
  const url = inputs.fill(remote.url, remote.variables ?? {});
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    const value = inputs.valueOf(header.name, header);
    if (value !== undefined) headers[header.name] = value;
  }
  return { type: remote.type === 'sse' ? 'sse' : 'http', url, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

/** The entry for one install choice; throws for a choice installOptions marked unsupported. */
export function entryFromRegistry(server: ServerJson, choice: InstallChoice, name = registryServerName(server.name)): RegistryEntry {
  const inputs = new Inputs(name);
  const entry = choice.kind === 'package' ? packageEntry(choice.package, inputs) : remoteEntry(choice.remote, inputs);
  const refused =
    choice.kind === 'package'
      ? packageHazards(choice.package, `packages[${choice.index}]`)
      : remoteHazards(choice.remote, `remotes[${choice.index}]`);
  return { name, entry, inputs: inputs.asked, refused };
}

/** The command line as a shell would show it, and the environment the entry sets, for the user to read before it is written. */
export function describeEntryLaunch(entry: Record<string, unknown>): string[] {
  if (typeof entry.url === 'string') return [`connects to ${entry.url}`];
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].map((word) => shellWord(String(word)));
  const env =
    typeof entry.env === 'object' && entry.env !== null
      ? Object.entries(entry.env as Record<string, unknown>).map(([key, value]) => `${key}=${shellWord(String(value))}`)
      : [];
  return [`runs: ${words.join(' ')}`, ...(env.length > 0 ? [`with: ${env.join(' ')}`] : [])];
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

// What a registry must not slip into an entry. Launcher flags that run a shell command or take
// packages from another index (the user agreed to a package, not to a command or a mirror);
// variables that load code into the launcher or its runtime; and characters a shell acts on (on
// Windows, npx and uvx run through cmd.exe, where a quote or % inside an argument is not inert).
const LAUNCHER_FLAGS: Readonly<Record<string, RegExp>> = {
  npm: /^(?:-c|--call|--shell|--script-shell|--node-options|--node-arg|--registry|--userconfig|--globalconfig|--prefix)(?:=|$)/,
  pypi: /^(?:--index-url|--extra-index-url|--default-index|--index|-i|--find-links|-f|--with-requirements|--python|-p|--directory)(?:=|$)/,
  nuget: /^(?:--source|-s|--add-source|--configfile)(?:=|$)/,
  oci: /^(?:--privileged|--pid|--ipc|--uts|--userns|--cgroupns|--cap-add|--security-opt|--device|--entrypoint|--volumes-from|--env-file|--network=host|--net=host)(?:=|$)/,
};
const RISKY_VARIABLE =
  /^(?:NODE_OPTIONS|NODE_PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|GIT_SSH_COMMAND|GIT_EXEC_PATH|PATH|PATHEXT|COMSPEC|npm_config_\w+|UV_\w*INDEX\w*|PIP_\w*INDEX\w*|DOCKER_HOST)$/i;
const SHELL_CHARACTERS = /["%!^&|<>`\r\n\0]/;
const IDENTIFIERS: Readonly<Record<string, RegExp>> = {
  npm: /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i,
  pypi: /^[a-z0-9][\w.-]*(?:\[[\w.,-]+\])?$/i,
  nuget: /^[a-z0-9][\w.-]*$/i,
  oci: /^[a-z0-9][\w./:@-]*$/i,
};
const VERSION = /^[\w][\w.+-]*$/;
/** A mount that hands the container the host: its root, the home folder, or the Docker socket. */
const HOST_MOUNT = /(?:^|[=,\s])(?:\/|~|\$HOME|\/home|\/root|\/Users)(?::|,|$)|docker\.sock/;

function packageHazards(item: RegistryPackage, at: string): string[] {
  const problems: string[] = [];
  const identifier = IDENTIFIERS[item.registryType];
  if (identifier && !identifier.test(item.identifier))
    problems.push(`${at}.identifier "${item.identifier}" is not a ${item.registryType} package name`);
  if (item.version !== undefined && !VERSION.test(item.version)) problems.push(`${at}.version "${item.version}" is not a version`);
  const flags = LAUNCHER_FLAGS[item.registryType];
  for (const [index, argument] of (item.runtimeArguments ?? []).entries()) {
    const where = `${at}.runtimeArguments[${index}]`;
    for (const word of argumentWords(argument)) {
      if (flags?.test(word)) problems.push(`${where} "${word}" would let the launcher run a command or fetch from elsewhere`);
      if (item.registryType === 'oci' && HOST_MOUNT.test(word))
        problems.push(`${where} "${word}" would hand the container the host's files`);
    }
  }
  for (const [list, values] of [
    ['runtimeArguments', item.runtimeArguments],
    ['packageArguments', item.packageArguments],
  ] as const) {
    for (const [index, argument] of (values ?? []).entries()) {
      for (const word of argumentWords(argument))
        if (SHELL_CHARACTERS.test(word)) problems.push(`${at}.${list}[${index}] ${JSON.stringify(word)} has characters a shell acts on`);
    }
  }
  for (const [index, variable] of (item.environmentVariables ?? []).entries()) {
    if (RISKY_VARIABLE.test(variable.name))
      problems.push(`${at}.environmentVariables[${index}] sets ${variable.name}, which loads code into the launcher`);
    for (const word of [variable.value, variable.default])
      if (word !== undefined && SHELL_CHARACTERS.test(word))
        problems.push(`${at}.environmentVariables[${index}] ${JSON.stringify(word)} has characters a shell acts on`);
  }
  return problems;
}

function argumentWords(argument: PackageArgument): string[] {
  return [argument.name, argument.value, argument.default].filter((word): word is string => word !== undefined);
}

function remoteHazards(remote: RegistryRemote, at: string): string[] {
  const undeclared = [...remote.url.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)]
    .map((match) => match[1] ?? '')
    .filter((name) => !Object.hasOwn(remote.variables ?? {}, name));
  if (undeclared.length > 0)
    return [`${at}.url "${remote.url}" uses ${undeclared.map((name) => `{${name}}`).join(', ')}, which ${at}.variables does not declare`];
  let url: URL;
  try {
    url = new URL(remote.url.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, 'x'));
  } catch {
    return [`${at}.url "${remote.url}" is not a URL`];
  }
  if (url.protocol === 'https:') return [];
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
  if (url.protocol === 'http:' && loopback) return [];
  return [`${at}.url "${remote.url}" is not an https:// URL (http:// only on this machine)`];
}
