// `${input:id}` values come from outside the configuration: the editor prompts (and may keep them in
// secret storage), the doctor CLI reads environment variables. The loader only sees this interface.

import type { ServerSource } from './types';

export interface InputRequest {
  readonly id: string;
  /** The first server that asked; later servers using the same id share the answer. */
  readonly server: string;
  readonly source: ServerSource;
  /** False for a disabled server, so a resolver can decline to prompt for it. */
  readonly enabled: boolean;
  /** From the matching `inputs` entry of a `.vscode/mcp.json`, when there is one. */
  readonly description?: string;
  readonly password?: boolean;
  readonly default?: string;
}

export interface InputResolver {
  /** Undefined means "no value": the server is reported as needing input. Throwing is an error. */
  resolve(request: InputRequest): Promise<string | undefined>;
}

/** What an `inputs` entry of `.vscode/mcp.json` tells a prompt. */
export interface InputDefinition {
  readonly id: string;
  readonly description?: string;
  readonly password?: boolean;
  readonly default?: string;
}

export const INPUT_ENV_PREFIX = 'MCP_SWITCHBOARD_INPUT_';

/** `${input:github-token}` is read from `MCP_SWITCHBOARD_INPUT_GITHUB_TOKEN`. */
export function inputEnvVarName(id: string): string {
  return INPUT_ENV_PREFIX + id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** For the doctor CLI and tests: answers from the environment, never prompts. */
export function createEnvInputResolver(env: Readonly<Record<string, string | undefined>> = process.env): InputResolver {
  return {
    async resolve(request) {
      return env[inputEnvVarName(request.id)];
    },
  };
}

/** Reads the `inputs` array of a `.vscode/mcp.json`; malformed entries are skipped, not reported. */
export function readInputDefinitions(raw: unknown): ReadonlyMap<string, InputDefinition> {
  const definitions = new Map<string, InputDefinition>();
  if (!Array.isArray(raw)) return definitions;
  for (const item of raw as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const record = item as Record<string, unknown>;
    if (typeof record.id !== 'string' || definitions.has(record.id)) continue;
    definitions.set(record.id, {
      id: record.id,
      ...(typeof record.description === 'string' ? { description: record.description } : {}),
      ...(typeof record.password === 'boolean' ? { password: record.password } : {}),
      ...(typeof record.default === 'string' ? { default: record.default } : {}),
    });
  }
  return definitions;
}
