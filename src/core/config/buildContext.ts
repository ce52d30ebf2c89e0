// What building one server needs from the outside world, and the entry it builds from.

import type path from 'node:path';
import type { WorkspaceFolder } from './configurationInput';
import type { ConfigFileSystem } from './fileSystem';
import type { InputDefinition, InputRequest } from './inputs';
import type { ParsedSandboxRules } from './entrySchema';
import type { LifecycleSettings, ServerSource } from './types';
import type { InputLookup } from './variables';

/** The user's defaults: `mcpSwitchboard.sandbox.enabled` and `mcpSwitchboard.sandbox.rules`. */
export interface SandboxDefaults {
  readonly enabled: boolean;
  readonly rules?: ParsedSandboxRules;
}

/** One entry, from any source, with the JSON path its diagnostics point at. */
export interface ServerCandidate {
  readonly name: string;
  readonly raw: unknown;
  readonly source: ServerSource;
  /** `servers.git`, `mcpServers.git`. */
  readonly path: string;
  /** `inputs` of the file the entry came from. */
  readonly inputs: ReadonlyMap<string, InputDefinition>;
  /** The `sandbox` block of the entry's mcp.json: the rules of its sandboxed servers without their own. */
  readonly fileSandbox?: ParsedSandboxRules;
  /** A team gateway's server: the gateway's sign-in (HttpServerDefinition.signInUrl). */
  readonly signInUrl?: string;
}

export interface BuildContext {
  readonly workspaceFolders: readonly WorkspaceFolder[];
  /** For entries that set neither `lifecycle` nor `idleStopMinutes`. */
  readonly lifecycleDefaults: LifecycleSettings;
  /** `mcpSwitchboard.sandbox.enabled` and `.rules`, for entries that do not decide themselves. */
  readonly sandboxDefaults: SandboxDefaults;
  readonly userHome: string;
  readonly paths: path.PlatformPath;
  readonly fs: ConfigFileSystem;
  lookupEnv(name: string): string | undefined;
  lookupInput(request: InputRequest): Promise<InputLookup>;
}
