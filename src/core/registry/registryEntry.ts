// A registry server (a package or a remote of its server.json) as a Switchboard entry: `npx`, `uvx`,
// `docker run`, `dnx` or a `url`. What the user must supply (a required environment variable,
// header, argument or URL variable without a value) becomes `${input:...}`, asked once and kept in
// the keychain; a secret one gets an id that the prompt masks.
import { isSecretName } from '../config/secrets';
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
  /** The `${input:}` ids the entry asks for, with what the registry says of each. */
  readonly inputs: readonly { readonly id: string; readonly description?: string; readonly secret: boolean }[];
}

const RUNNERS: Readonly<Record<string, string>> = { npm: 'npx', pypi: 'uvx', oci: 'docker', nuget: 'dnx' };

/** Every way the server can be installed, packages first, each saying if Switchboard can run it. */
export function installOptions(server: ServerJson): InstallOption[] {
  const packages = (server.packages ?? []).map((item, index): InstallOption => {
    const label = `${item.registryType} ${item.identifier}${item.version ? ` ${item.version}` : ''}`;
    if (!RUNNERS[item.registryType]) {
      return { choice: { kind: 'package', index, package: item }, label, unsupported: `a ${item.registryType} package, which Switchboard cannot run: install it yourself, then Add Server with its command` };
    }
    if (item.transport.type !== 'stdio') {
      return { choice: { kind: 'package', index, package: item }, label, unsupported: `it serves ${item.transport.type} on a local port: start it yourself, then Add Server with its URL` };
    }
    return { choice: { kind: 'package', index, package: item }, label };
  });
  const remotes = (server.remotes ?? []).map((remote, index): InstallOption => ({ choice: { kind: 'remote', index, remote }, label: `remote ${remote.type} ${remote.url}` }));
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
    const base = `${this.server}-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
    const secret = input.isSecret === true;
    const id = secret && !isSecretName(base) ? `${base}-secret` : base;
    if (!this.asked.some((item) => item.id === id)) this.asked.push({ id, secret, ...(input.description ? { description: input.description } : {}) });
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
      const variable = variables[name];
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
      return withEnv({ command: 'docker', args: ['run', '-i', '--rm', ...runtime, ...Object.keys(env).flatMap((name) => ['-e', name]), image, ...args] });
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
  return { name, entry, inputs: inputs.asked };
}
