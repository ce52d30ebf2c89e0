// A window's or an agent's side of sharing: which of its configured servers run in the machine
// host, and the definitions that reach them there. Between the configuration and the manager:
// `share()` takes what the configuration gave and returns what the manager runs, each shared stdio
// server replaced by a streamable HTTP connection to the host's endpoint for it (over the host's
// socket, machine/hostFetch.ts). Everything above the connection (name, filters, tool sets, the
// catalog and the views) stays this window's.
//
// Shared, unless the policy says otherwise: stdio servers from the user's own sources (user
// settings, the editor's user mcp.json, other agents' home files), sandboxed ones too (the launch
// carries the places this window's sandboxes protect, and the host's copy protects them: windows
// that protect other places get copies of their own). Kept here: servers the workspace defines
// (their folder, roots and consent are this window's) unless the user opts one in; dev servers
// (`dev.watch` restarts them on this window's edits); HTTP servers (a connection, not a process:
// nothing to save, and their sign-ins stay per window).
import path from 'node:path';
import { z } from 'zod';
import { Emitter, type Event } from '../base/events';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import {
  DEFAULT_OAUTH,
  isWorkspaceDefinedSource,
  type HttpServerDefinition,
  type SandboxPlaces,
  type StdioServerDefinition,
} from '../config';
import { HOST_NAME, HOST_PATHS, type HostLink, type HostLinkState } from '../machine';
import type { ConfiguredServer } from '../manager';
import { sharedLaunchOf, MAX_SHARED_PER_CLIENT } from './sharedLaunch';
import type { HostedServer } from './hostedServers';

/** `mcpSwitchboard.shareServers`, and its per-server overrides. */
export interface SharingPolicy {
  /** false: every server runs in this window. */
  readonly enabled: boolean;
  /** By this window's name for a server: false keeps it here, true shares a workspace-defined one too. */
  readonly servers: Readonly<Record<string, boolean>>;
}

/** Whether `policy` keeps every server in its window (no host is needed for it). */
export function sharesNothing(policy: SharingPolicy): boolean {
  return !policy.enabled && !Object.values(policy.servers).includes(true);
}

/** The default: every server that may be shared is. */
export const SHARE_ALL: SharingPolicy = { enabled: true, servers: {} };
/** `false`: every server runs in its own window. */
export const SHARE_NONE: SharingPolicy = { enabled: false, servers: {} };

/** The setting that says it (`mcpSwitchboard.shareServers`), in the user's settings. */
export const SHARE_SETTING = 'shareServers';

/**
 * The policy a value of `mcpSwitchboard.shareServers` says: `true` (the default) or `false`, or an
 * object of server names to booleans, where `"*"` says what the others do (default: shared).
 * Anything else: the default.
 */
export function sharingPolicyFrom(value: unknown): SharingPolicy {
  if (typeof value === 'boolean') return { enabled: value, servers: {} };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return SHARE_ALL;
  const servers: Record<string, boolean> = {};
  let enabled = true;
  for (const [name, on] of Object.entries(value as Record<string, unknown>).slice(0, 1000)) {
    if (typeof on !== 'boolean') continue;
    if (name === '*') enabled = on;
    else servers[name] = on;
  }
  return { enabled, servers };
}

const REGISTER_MS = 5_000;
/** The host's copies listing again what they offer: each within its own request timeout, so this bounds only a host that hangs. */
const REFRESH_MS = 60_000;

const hostStatusSchema = z.object({ clients: z.record(z.string(), z.number().int().nonnegative()) });

const hostAnswerSchema = z.object({
  servers: z.array(z.object({ name: z.string().regex(/^s[0-9a-f]{16}$/), endpoint: z.string().regex(/^\/mcp\/s[0-9a-f]{16}$/) })),
});

export interface ServerSharingOptions {
  readonly link: HostLink;
  readonly policy: () => SharingPolicy;
  /** This window's open folders: a server defined in one is the workspace's. */
  readonly workspaceFolders: () => readonly string[];
  /** What this window's sandboxes protect, and where it finds their tools: a sandboxed server it shares protects the same in the host. */
  readonly sandboxPlaces?: () => SandboxPlaces;
  readonly logger: Logger;
}

/** Why a server is not shared, in the user's words; undefined when it may be. */
export function whyNotShared(server: ConfiguredServer, policy: SharingPolicy, folders: readonly string[]): string | undefined {
  if (!('transport' in server)) return 'its entry is broken';
  const override = policy.servers[server.name];
  if (!policy.enabled && override !== true) return 'sharing is off (mcpSwitchboard.shareServers)';
  if (override === false) return 'sharing is off for this server';
  if (server.transport !== 'stdio') return 'it is a remote server';
  if (server.devWatch !== undefined && server.devWatch.length > 0) return 'it restarts on this window’s edits (dev.watch)';
  if (override !== true && isWorkspaceDefinedSource(server.source, folders, path)) return 'the workspace defines it';
  return undefined;
}

export class ServerSharing {
  private readonly changed = new Emitter<void>();
  /** Fires when what share() returns would change (attached to a new host, or no host): the caller shares again. */
  readonly onDidChange: Event<void> = this.changed.event;
  /** The link's state that share() last used (attached or not): a change from it is news. */
  private lastAttached: HostLinkState | undefined;
  private sharing = 0;
  /** What was shared last, by this window's name: kept while the link attaches again, so that nothing starts here meanwhile. */
  private shared = new Map<string, HttpServerDefinition>();

  constructor(private readonly options: ServerSharingOptions) {
    options.link.onDidChange(() => this.noticeLink());
  }

  /** A new host attached, or none: unless a share() is under way (it tells when it ends), the caller shares again. */
  private noticeLink(): void {
    const state = this.options.link.current;
    if (this.sharing > 0 || state === this.lastAttached) return;
    if (state.kind === 'attached' || state.kind === 'own') this.changed.fire();
  }

  /**
   * Starts the machine host ahead of the first share(), so that it loads while the window reads
   * its configuration; not when the policy shares nothing. A host no one attaches to ends by itself.
   */
  warm(): Promise<void> {
    return sharesNothing(this.options.policy()) ? Promise.resolve() : this.options.link.warm();
  }

  /**
   * Starts the machine host ahead of share() when `configured` holds a server it would share: an
   * agent's serve, once it has read its configuration, while it settles consent and builds its
   * runtime. An agent with nothing to share starts no host, as share() would not.
   */
  warmFor(configured: readonly ConfiguredServer[]): Promise<void> {
    return this.candidates(configured).length > 0 ? this.options.link.warm() : Promise.resolve();
  }

  /** What of `configured` the policy lets the host run (the rest stays with this client). */
  private candidates(configured: readonly ConfiguredServer[]): StdioServerDefinition[] {
    const policy = this.options.policy();
    const folders = this.options.workspaceFolders();
    return configured
      .filter((server): server is StdioServerDefinition => whyNotShared(server, policy, folders) === undefined)
      .slice(0, MAX_SHARED_PER_CLIENT);
  }

  /** Whether the last share() put any server in the host. */
  get sharesAny(): boolean {
    return this.shared.size > 0;
  }

  /**
   * What the manager runs: `configured`, with each server that may be shared replaced by a
   * connection to the host's copy. Attaches first (starting a host if there is none); without a
   * host (refused, another version busy, not answering) everything runs here.
   */
  async share(configured: readonly ConfiguredServer[]): Promise<ConfiguredServer[]> {
    this.sharing += 1;
    try {
      return await this.shareNow(configured);
    } finally {
      this.sharing -= 1;
      // The link moved on while this ran (the host ended meanwhile): the caller shares again.
      this.noticeLink();
    }
  }

  private async shareNow(configured: readonly ConfiguredServer[]): Promise<ConfiguredServer[]> {
    const { link, logger } = this.options;
    const candidates = this.candidates(configured);
    if (candidates.length === 0 && link.current.kind !== 'attached') return [...configured];
    const state = link.current.kind === 'attaching' && this.lastAttached ? link.current : await link.attach();
    if (state.kind === 'attaching') return configured.map((server) => this.shared.get(server.name) ?? server);
    if (state.kind !== 'attached') {
      this.lastAttached = state;
      this.shared = new Map();
      if (state.kind === 'own') logger.info(`machine host: ${state.why}`);
      return [...configured];
    }
    const places = this.options.sandboxPlaces?.() ?? { workspaceFolders: this.options.workspaceFolders() };
    const launches = candidates.map((definition) => sharedLaunchOf(definition, places));
    let hosted: HostedServer[];
    try {
      const answer = await link.ask({
        method: 'PUT',
        path: HOST_PATHS.servers,
        timeoutMs: REGISTER_MS,
        body: { servers: launches },
      });
      if (answer.status !== 200) throw new Error(`the host answered HTTP ${answer.status}`);
      const parsed = hostAnswerSchema.safeParse(answer.body);
      if (!parsed.success || parsed.data.servers.length !== candidates.length) throw new Error('the host answered with another list');
      hosted = parsed.data.servers;
    } catch (error) {
      logger.warn(`machine host: sharing failed (${errorMessage(error)}); this window runs its servers itself`);
      this.lastAttached = state;
      this.shared = new Map();
      return [...configured];
    }
    this.lastAttached = state;
    const token = link.token ?? '';
    const socket = link.socket;
    this.shared = new Map(
      candidates.map((definition, index) => [
        definition.name,
        connectionTo(definition, hosted[index] as HostedServer, launches[index]?.cwd, token, socket),
      ]),
    );
    return configured.map((server) => this.shared.get(server.name) ?? server);
  }

  /**
   * Invalidate Tool Cache for servers of this window that run in the host (`names`, or all): the
   * host's copies list again what they offer, so that the window's own relist reads their lists
   * fresh. A host that cannot is logged; the window's relist still runs.
   */
  async refresh(names?: readonly string[]): Promise<void> {
    const hosted = [...this.shared.entries()]
      .filter(([name]) => names === undefined || names.includes(name))
      .flatMap(([, definition]) => (definition.hosted ? [definition.hosted.name] : []));
    if (hosted.length === 0 || this.options.link.current.kind !== 'attached') return;
    try {
      const answer = await this.options.link.ask({
        method: 'POST',
        path: HOST_PATHS.servers,
        timeoutMs: REFRESH_MS,
        body: { refresh: hosted },
      });
      if (answer.status !== 200) throw new Error(`the host answered HTTP ${answer.status}`);
    } catch (error) {
      this.options.logger.warn(`machine host: its servers could not list their tools again (${errorMessage(error)})`);
    }
  }

  /** How many windows and agents use the host's copy of this window's server `name` (itself included); undefined when not shared. */
  clientsOf(name: string): number | undefined {
    const hosted = this.shared.get(name)?.hosted;
    if (!hosted || this.options.link.current.kind !== 'attached') return undefined;
    const status = hostStatusSchema.safeParse(this.options.link.status);
    return status.success ? (status.data.clients[hosted.name] ?? 0) : undefined;
  }

  /** The host said how many clients use each server (clientsOf() may have changed). */
  get onDidChangeClients(): Event<unknown> {
    return this.options.link.onDidHearStatus;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** This window's connection to the host's copy of `definition`: its own name, filters and lifecycle, the host's URL. */
function connectionTo(
  definition: StdioServerDefinition,
  hosted: HostedServer,
  cwd: string | undefined,
  token: string,
  socket: string,
): HttpServerDefinition {
  return {
    name: definition.name,
    source: definition.source,
    enabled: definition.enabled,
    timeouts: definition.timeouts,
    reconnect: definition.reconnect,
    tools: definition.tools,
    resources: definition.resources,
    prompts: definition.prompts,
    // As the entry says, so that the row reads as it did (`ready` while idle); the host keeps its
    // own count of use, and stops the process once no client has used it for that long.
    lifecycle: definition.lifecycle,
    secrets: [...definition.secrets, token],
    transport: 'http',
    url: `http://${HOST_NAME}${hosted.endpoint}`,
    headers: { Authorization: `Bearer ${token}` },
    sseFallback: false,
    oauth: { ...DEFAULT_OAUTH, enabled: false },
    hosted: { definition, name: hosted.name, socket, cwd },
  };
}
