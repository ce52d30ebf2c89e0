// The one composition of the core, shared by the editor, `serve` and `doctor`: a manager, the
// catalog over it, and (for hosts that serve chat) the gateway over the catalog. The hosts differ
// only in what they hand in: loggers, where the tool cache lives, the tool settings, and whether
// and when the gateway listens. Disposal runs in reverse: gateway, catalog, manager.
import { MemorySecretStore, OAuthRegistry, ServerSignIn, type SecretStore } from '../auth';
import { OfferCatalog, ToolCatalog, type CatalogSettings, type SearchIndexing, type ToolCacheStorage } from '../catalog';
import { systemClock, type Clock } from '../base/clock';
import { RelayRouter, type HostAnswers } from '../connection';
import type { Transport } from '@modelcontextprotocol/server';
import { McpGateway, serveStdioSession, type EndpointId, type GatewayOptions, type StdioSession } from '../gateway';
import { nullLogger, type Logger } from '../base/logging';
import { ServerManager, type ManagerOptions } from '../manager';
import { errorMessage } from '../base/errorMessage';
import { TeamDirectory } from '../team';
import { fetchSayingVia, newSwitchboardId } from '../base/selfLoop';

export interface RuntimeOptions {
  readonly logger?: Logger;
  /** The logger of one server's connection (the editor gives each server its own channel). */
  readonly serverLogger?: (name: string) => Logger;
  readonly connection?: ManagerOptions['connection'];
  readonly startupGateMs?: number;
  readonly concurrency?: number;
  readonly clock?: Clock;
  readonly storage: ToolCacheStorage;
  readonly settings: Partial<CatalogSettings>;
  /** When the catalog's search index follows it (ToolCatalogOptions.searchIndex). */
  readonly searchIndex?: SearchIndexing;
  /** How the host answers what servers ask when no client of the gateway can (dialogs, folders). */
  readonly hostAnswers?: HostAnswers;
  /** Where OAuth tokens and client registrations are kept; absent, only for this process. */
  readonly secrets?: SecretStore;
}

/** Set in the environment of every server a Switchboard runtime starts. */
export const LAUNCHED_BY_ENV = 'MCP_SWITCHBOARD_LAUNCHED_BY';

/** The environment without Switchboard's own variables (any case: Windows' names are not case-sensitive). */
export function withoutOwnSettings(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.toUpperCase().startsWith('MCP_SWITCHBOARD_')));
}

export type RuntimeGatewayOptions = Omit<GatewayOptions, 'source' | 'offers' | 'relays' | 'logger'>;

export class SwitchboardRuntime {
  readonly manager: ServerManager;
  readonly catalog: ToolCatalog;
  /** Resources, templates and prompts: what chat may use of each server besides its tools. */
  readonly offers: OfferCatalog;
  /** Who answers elicitation, sampling and roots requests: the asking client, else the host. */
  readonly relays: RelayRouter;
  /** OAuth for remote servers: one provider per server, and Sign In / Sign Out. */
  readonly oauth: OAuthRegistry;
  readonly signIns: ServerSignIn;
  /** Team gateways' listings of their servers, read with the same sign-ins (a TeamLister for the config). */
  readonly teams: TeamDirectory;
  /**
   * This Switchboard among others (base/selfLoop.ts): its requests to HTTP servers say it, its
   * gateway refuses a request that comes from it, and what it lists carries it.
   */
  readonly switchboardId = newSwitchboardId();
  private gatewayInstance: McpGateway | undefined;
  private disposing: Promise<void> | undefined;
  private readonly logger: Logger;

  constructor(options: RuntimeOptions) {
    this.logger = options.logger ?? nullLogger;
    this.relays = new RelayRouter(options.hostAnswers);
    const serverLogger = options.serverLogger ?? (() => this.logger);
    // What servers and team gateways are asked (not authorization servers) says it comes from here.
    const fetch = fetchSayingVia(options.connection?.fetch, this.switchboardId);
    this.oauth = new OAuthRegistry({
      store: options.secrets ?? new MemorySecretStore(),
      clock: options.connection?.clock ?? options.clock ?? systemClock,
      logger: serverLogger,
      ...(options.connection?.fetch ? { fetch: options.connection.fetch } : {}),
    });
    this.manager = new ServerManager({
      serverRequests: (name) => this.relays.handlersFor(name),
      logger: this.logger,
      serverLogger: options.serverLogger,
      // Every server learns that Switchboard started it: a `serve` started that way (an entry that
      // launches Switchboard, as Share writes) refuses to serve the same servers again inside it.
      // It inherits nothing else of Switchboard's own (MCP_SWITCHBOARD_*: its settings, a Redis
      // URL with its password, stored inputs, a token): an entry that needs one names it.
      connection: {
        oauth: this.oauth,
        ...options.connection,
        fetch,
        switchboardId: this.switchboardId,
        baseEnv: { ...withoutOwnSettings(options.connection?.baseEnv ?? process.env), [LAUNCHED_BY_ENV]: '1' },
      },
      startupGateMs: options.startupGateMs,
      concurrency: options.concurrency,
      clock: options.clock,
    });
    this.catalog = new ToolCatalog({
      manager: this.manager,
      storage: options.storage,
      settings: options.settings,
      logger: this.logger,
      clock: options.clock,
      searchIndex: options.searchIndex,
    });
    this.offers = new OfferCatalog(this.manager, this.logger, this.catalog);
    this.signIns = new ServerSignIn(this.manager, this.oauth);
    this.teams = new TeamDirectory({ oauth: this.oauth, logger: this.logger, fetch });
  }

  /**
   * The gateway's aggregated endpoint (or one server's) for one client on `transport` (`serve
   * --stdio`, a window on the machine host's socket): the same catalog, offers and relays as the
   * HTTP gateway's sessions.
   */
  stdioSession(transport: Transport, endpoint?: EndpointId, options: { readonly passToolCalls?: boolean } = {}): Promise<StdioSession> {
    if (this.disposing) return Promise.reject(new Error('the runtime was disposed'));
    return serveStdioSession(
      {
        source: this.catalog,
        offers: this.offers,
        relays: this.relays,
        logger: this.logger,
        switchboardId: this.switchboardId,
        endpoint,
        ...options,
      },
      transport,
    );
  }

  /** The gateway over the catalog, created on first use; start() makes it listen. */
  gateway(options: RuntimeGatewayOptions = {}): McpGateway {
    if (this.disposing) throw new Error('the runtime was disposed');
    this.gatewayInstance ??= new McpGateway({
      ...options,
      source: this.catalog,
      offers: this.offers,
      relays: this.relays,
      logger: this.logger,
      switchboardId: this.switchboardId,
    });
    return this.gatewayInstance;
  }

  /**
   * Drops the cached lists (tools, resources, prompts) of one server or all, and lists the running
   * ones again. Resolves when listed and stored.
   */
  async invalidateCaches(server?: string): Promise<void> {
    await this.catalog.invalidate(server);
    await this.offers.refresh(server);
  }

  /** Stops listening, then the catalog, then every server process. Idempotent; never rejects. */
  dispose(): Promise<void> {
    this.disposing ??= this.shutDown();
    return this.disposing;
  }

  private async shutDown(): Promise<void> {
    const steps: Array<[string, () => Promise<void>]> = [
      ['the gateway', async () => this.gatewayInstance?.dispose()],
      [
        'the catalog',
        async () => {
          this.offers.dispose();
          await this.catalog.dispose();
        },
      ],
      ['the servers', async () => this.manager.dispose()],
    ];
    for (const [what, step] of steps) {
      try {
        await step();
      } catch (error) {
        this.logger.warn(`stopping ${what} failed: ${errorMessage(error)}`);
      }
    }
  }
}

export function createRuntime(options: RuntimeOptions): SwitchboardRuntime {
  return new SwitchboardRuntime(options);
}
