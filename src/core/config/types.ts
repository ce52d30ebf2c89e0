// The shapes that flow out of configuration and into the manager and connections. Everything here
// is plain data so that it can be hashed, compared, copied and printed by the doctor CLI.

/**
 * Every source that is a file, in precedence order (settings come before all of them); where each
 * keeps its servers is in sourceLocations.ts.
 */
export const FILE_SOURCES = [
  'mcpJson',
  'mcpJsonPortable',
  'vscodeUserMcpJson',
  'cursor',
  'claudeCode',
  'copilotCli',
  'codex',
  'gemini',
  'windsurf',
  'claudeDesktop',
] as const;
export type FileSourceKind = (typeof FILE_SOURCES)[number];

/**
 * Where a server entry was read from. `user`, `workspace` and `folder` are settings scopes; `team`
 * is a team gateway's listing of its servers (teamSources.ts).
 */
export type ServerSourceKind = 'user' | 'workspace' | 'folder' | FileSourceKind | 'team';

export interface ServerSource {
  readonly kind: ServerSourceKind;
  /** File the entry came from, when known (settings.json, .vscode/mcp.json, ...). */
  readonly file?: string;
  /** The team gateway's base URL, for `team`. */
  readonly url?: string;
}

export type TransportType = 'stdio' | 'http' | 'sse';

export interface TimeoutSettings {
  /** Spawn + initialize + first tools/list. 0 disables. */
  readonly connectMs: number;
  /** Every request. 0 disables. */
  readonly requestMs: number;
}

export interface ReconnectSettings {
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export interface LifecycleSettings {
  /** `eager`: starts with the window; `lazy`: on the first request that needs it. */
  readonly start: 'eager' | 'lazy';
  /** Stops the server after this long without a client using it; 0: never. */
  readonly idleStopMs: number;
}

export interface ToolFilterSettings {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly readOnly?: boolean;
}

interface ServerDefinitionBase {
  readonly name: string;
  readonly source: ServerSource;
  readonly enabled: boolean;
  readonly timeouts: TimeoutSettings;
  readonly reconnect: ReconnectSettings;
  readonly tools: ToolFilterSettings;
  /** false hides the server's resources (or prompts) from chat; absent means shown. */
  readonly resources?: boolean;
  readonly prompts?: boolean;
  readonly lifecycle: LifecycleSettings;
  /**
   * The editor's `dev.watch`: glob patterns, relative to the server's folder (its `cwd`, else its
   * workspace folder); a change to a matching file restarts the server. Absent: none.
   */
  readonly devWatch?: readonly string[];
  /**
   * Values that came from `${input:...}` or look like secrets; loggers and the UI redact them.
   * Never persisted.
   */
  readonly secrets: readonly string[];
}

export interface StdioServerDefinition extends ServerDefinitionBase {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Already merged: envFile values, then `env`, with variables resolved. Process env not included. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** True when `cwd` is the owning workspace folder because the entry names none (where a shared server then runs: sharing/sharedLaunch.ts). */
  readonly cwdIsFolder?: boolean;
  /** The sandbox the server runs in (the editor's `sandboxEnabled` and `sandbox` block); absent: off, no rules. */
  readonly sandbox?: SandboxSetting;
}

/** What a sandboxed stdio server may touch, with every path resolved (the editor's `sandbox` block). */
export interface SandboxRules {
  readonly filesystem: {
    /** Writable paths; everything else is read-only. */
    readonly allowWrite: readonly string[];
    readonly denyRead: readonly string[];
    /** Refused even inside allowWrite. */
    readonly denyWrite: readonly string[];
  };
  readonly network: {
    /** Host names (`*.example.com`, `host:port`) the server may reach through the sandbox's proxy; empty: none. */
    readonly allowedDomains: readonly string[];
    /** Refused even when allowed. */
    readonly deniedDomains: readonly string[];
  };
}

/**
 * Where a sandbox's rules came from: the entry's own block, its file's `sandbox` block (mcp.json),
 * `mcpSwitchboard.sandbox.rules`, the built-in defaults, or *Run Sandboxed* in the consent dialog
 * (the workspace folder and temp only, whatever the entry asks for).
 */
export type SandboxRulesOrigin = 'entry' | 'file' | 'userDefault' | 'builtIn' | 'workspaceConsent';

export interface SandboxSetting {
  readonly enabled: boolean;
  readonly rules: SandboxRules;
  readonly origin: SandboxRulesOrigin;
  /**
   * For a server the machine host runs for a client: that client's open folders and editor files,
   * which the sandbox keeps read-only as the client's own would (sharing/sharedLaunch.ts). Part of
   * the fingerprint, so clients that protect other places never share a copy. Absent: this
   * process's own places (the connection's sandbox placement).
   */
  readonly places?: SandboxPlaces;
}

/** The places a client's sandboxes protect, and where it found the sandbox's tools. */
export interface SandboxPlaces {
  readonly workspaceFolders: readonly string[];
  readonly editorUserDir?: string;
  readonly workspaceFile?: string;
  /** Folders searched after PATH for the sandbox's tools (the editor's own ripgrep). */
  readonly toolDirs?: readonly string[];
}

/** The sandbox a stdio server runs in (here, or in the machine host), or undefined when it runs with the user's rights. */
export function sandboxOf(definition: ServerDefinition | undefined): SandboxSetting | undefined {
  const launch = launchOf(definition);
  return launch?.transport === 'stdio' && launch.sandbox?.enabled ? launch.sandbox : undefined;
}

/** How to sign in when the server answers 401 (MCP authorization, OAuth 2.1). */
export interface OAuthSettings {
  /** false: never sign in; a 401 is an error like any other. */
  readonly enabled: boolean;
  /**
   * `authorization_code`: a person signs in in the browser; `client_credentials`: unattended, the
   * client's own credentials; `jwt_bearer`: unattended, a workload's identity token (RFC 7523);
   * `enterprise`: enterprise-managed authorization (SEP-990), the user's ID token from the
   * enterprise's identity provider exchanged there for a grant (an ID-JAG) the server's
   * authorization server takes.
   */
  readonly grant: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'enterprise';
  /** Pre-registered client; without it, a client ID metadata document, then dynamic registration. */
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scopes?: readonly string[];
  /** An HTTPS URL of a client ID metadata document, used where the authorization server supports one. */
  readonly clientMetadataUrl?: string;
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
  /** `private_key_jwt`: the client's private key (PEM), which signs its assertion; a secret. */
  readonly privateKey?: string;
  /** The assertion's JWS algorithm (`ES256`, `RS256`, ...); absent, the key's type decides. */
  readonly signingAlgorithm?: string;
  /** Sender-constrained tokens (DPoP, RFC 9449): asked for, and presented with a proof per request. */
  readonly dpop?: boolean;
  /** `jwt_bearer`: the workload's identity token itself (a secret)… */
  readonly assertion?: string;
  /** …or the file it is kept in, read at each token request (such tokens rotate). */
  readonly assertionFile?: string;
  /** `enterprise`: the identity provider that exchanges the user's ID token for a grant. */
  readonly idp?: EnterpriseIdp;
  /**
   * On a team gateway: a user's request goes upstream with that user's own token, never with the
   * gateway's own: got by exchanging their token at the server's authorization server
   * (`tokenExchange`, RFC 8693), or from their own sign-in to it, which the gateway keeps
   * (`signIn`). The gateway's own grant is for requests made for nobody (listing tools).
   * Elsewhere there is no user to act for, and the server cannot be called.
   */
  readonly perUser?: 'tokenExchange' | 'signIn';
}

/** The enterprise's identity provider (`"grant": "enterprise"`). */
export interface EnterpriseIdp {
  /** Where its token endpoint is found (OpenID discovery), unless `tokenEndpoint` names it. */
  readonly issuer?: string;
  readonly tokenEndpoint?: string;
  /** The client Switchboard is registered as at the identity provider. */
  readonly clientId: string;
  readonly clientSecret?: string;
  /** The user's ID token itself (a secret)… */
  readonly idToken?: string;
  /** …or the file the enterprise's sign-in keeps it in, read at each token request. */
  readonly idTokenFile?: string;
}

export const DEFAULT_OAUTH: OAuthSettings = { enabled: true, grant: 'authorization_code' };

export interface HttpServerDefinition extends ServerDefinitionBase {
  /** `http` is streamable HTTP. `sseFallback` is true when the user left `type` out. */
  readonly transport: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly sseFallback: boolean;
  readonly oauth: OAuthSettings;
  /**
   * The URL whose sign-in this server uses, when not its own: a team gateway's servers share the
   * gateway's (its `/mcp`), so that one sign-in serves every row.
   */
  readonly signInUrl?: string;
  /**
   * Set when this is a window's connection to a server that runs in the machine host (sharing/):
   * the stdio server as configured here, and the host's name for it. The URL is the host's.
   */
  readonly hosted?: HostedServerRef;
}

/** A stdio server run by the machine host for every window and agent that configures the same launch. */
export interface HostedServerRef {
  readonly definition: StdioServerDefinition;
  /** The host's name for it: `s` and the launch's fingerprint. */
  readonly name: string;
  /** The host's socket, which the connection reaches it on (connection/link/socketTransport.ts). */
  readonly socket: string;
  /** The folder the host runs it in; undefined: the home folder (sharing/sharedLaunch.ts). */
  readonly cwd: string | undefined;
}

/**
 * What a server runs as its entry configures it: its definition, or for one shared through the
 * machine host, the stdio server the host runs (what its row offers to sandbox, copy or compare).
 */
export function launchOf(definition: ServerDefinition): ServerDefinition;
export function launchOf(definition: ServerDefinition | undefined): ServerDefinition | undefined;
export function launchOf(definition: ServerDefinition | undefined): ServerDefinition | undefined {
  return definition?.transport === 'http' && definition.hosted ? definition.hosted.definition : definition;
}

/** A fully validated, variable-resolved server, ready to connect. */
export type ServerDefinition = StdioServerDefinition | HttpServerDefinition;

/** A remote server with OAuth not turned off: it can sign in, and out. */
export function signsInWithOAuth(definition: ServerDefinition | undefined): definition is HttpServerDefinition {
  return definition !== undefined && definition.transport !== 'stdio' && definition.oauth.enabled;
}

export type DiagnosticSeverity = 'error' | 'warning';

export interface ConfigDiagnostic {
  readonly severity: DiagnosticSeverity;
  /** Server name, when the problem belongs to one entry. */
  readonly server?: string;
  /** JSON path such as `servers.git.args[2]`. */
  readonly path: string;
  readonly message: string;
  readonly source: ServerSource;
  /** 1-based position in `source.file`, when known (JSONC parse errors). */
  readonly line?: number;
  readonly column?: number;
}

/** An entry that could not be turned into a ServerDefinition; the manager shows it as `invalid`. */
export interface InvalidServer {
  readonly name: string;
  readonly source: ServerSource;
  readonly diagnostics: readonly ConfigDiagnostic[];
  /** Set when the only problem is a missing `${input:...}` value: the server is blocked, not broken. */
  readonly needsInput?: readonly string[];
}

export const NO_SANDBOX_RULES: SandboxRules = {
  filesystem: { allowWrite: [], denyRead: [], denyWrite: [] },
  network: { allowedDomains: [], deniedDomains: [] },
};

export const DEFAULT_LIFECYCLE: LifecycleSettings = { start: 'eager', idleStopMs: 0 };
export const DEFAULT_TIMEOUTS: TimeoutSettings = { connectMs: 30_000, requestMs: 60_000 };
export const DEFAULT_RECONNECT: ReconnectSettings = { maxAttempts: 5, initialDelayMs: 500, maxDelayMs: 30_000 };
