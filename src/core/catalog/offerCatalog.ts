// What chat may use of each server besides its tools: resources, templates and prompts (as the
// connections last listed them, kept while a server reconnects), minus what a server entry hides
// (`"resources": false`, `"prompts": false`). It is the gate for every request about them, as the
// tool catalog is for tool calls.
import type { ServerDefinition } from '../config';
import type {
  OfferChangeEvent,
  ServerNotice,
  ForwardedMethod,
  ForwardedResult,
  ServerOffer,
  CallerOptions,
  CallOutcome,
  Skill,
  SkillFile,
} from '../connection';
import { declaresSkills, SKILLS_EXTENSION } from '../connection';

function skillsDeclaration(capabilities: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return ((capabilities.extensions as Record<string, Record<string, unknown>> | undefined)?.[SKILLS_EXTENSION] ?? {}) as Record<
    string,
    unknown
  >;
}
import { isServed, type RunningState, type ServerInfo, type ServerState, type ServerStateChangeEvent } from '../state';
import { Emitter, type Disposable, type Event } from '../base/events';
import { nullLogger, type Logger } from '../base/logging';
import { containFailure } from '../base/contain';
import type { CachedOffer } from './cache';
import { SwitchboardError, unknownServer } from '../state';
import type { OfferCapabilities, OfferChange, OfferedServer, OfferSource } from './types';

/** What the offer catalog needs of the manager; ServerManager provides it. */
export interface OfferManager {
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
  readonly onDidChangeOffer: Event<OfferChangeEvent>;
  readonly onNotice: Event<ServerNotice>;
  /** Which servers there are changed; the removed ones are named (they fire no state event of their own). */
  readonly onDidChangeServers: Event<{ readonly removed: readonly string[] }>;
  servers(): readonly { readonly name: string; readonly state: ServerState; readonly definition?: ServerDefinition }[];
  server(name: string): { readonly state: ServerState; readonly definition?: ServerDefinition } | undefined;
  connection(
    name: string,
  ): { readonly offer: ServerOffer; readonly lastRunning: RunningState | undefined; refreshOffer(): Promise<void> } | undefined;
  forwardRequest<M extends ForwardedMethod, O extends CallerOptions = CallerOptions>(
    server: string,
    method: M,
    params: Record<string, unknown>,
    options?: O,
  ): Promise<CallOutcome<O, ForwardedResult<M>>>;
  subscribeResource(server: string, uri: string): Promise<void>;
  unsubscribeResource(server: string, uri: string): Promise<void>;
  readSkillFile(server: string, skill: Skill, ref?: string, options?: CallerOptions): Promise<SkillFile>;
}

/**
 * Where offers are kept between runs, next to the tool lists, and the one wait for a server that
 * is starting or idle: the tool catalog's (ToolCatalog provides both).
 */
export interface OfferStore {
  cachedOffer(server: string): CachedOffer | undefined;
  rememberOffer(server: string, offer: CachedOffer): void;
  /** Resolves with the request's deadline once the server is ready (or at once when waiting cannot help). */
  readyServer(
    server: string,
    options?: { readonly signal?: AbortSignal | undefined; readonly readyBy?: number | undefined },
  ): Promise<number | undefined>;
}

/** Which part of the offer a request is about, to check it is shown. */
function featureOf(method: ForwardedMethod, params: Record<string, unknown>): 'resources' | 'prompts' | 'logging' {
  // A skill and its folders are resources (SEP-2640).
  if (method === 'resources/read' || method === 'skills/get' || method === 'resources/directory/read') return 'resources';
  if (method === 'prompts/get') return 'prompts';
  if (method === 'logging/setLevel') return 'logging';
  const ref = params.ref as { type?: unknown } | undefined;
  return ref?.type === 'ref/prompt' ? 'prompts' : 'resources';
}

/** The part of a server's capabilities the gateway can pass on. */
function offerCapabilities(capabilities: Readonly<Record<string, unknown>>, definition: ServerDefinition | undefined): OfferCapabilities {
  const pick = (key: string) =>
    typeof capabilities[key] === 'object' && capabilities[key] !== null
      ? structuredClone(capabilities[key] as Record<string, unknown>)
      : undefined;
  const resources = definition?.resources === false ? undefined : pick('resources');
  const prompts = definition?.prompts === false ? undefined : pick('prompts');
  const completions = pick('completions');
  const logging = pick('logging');
  // Skill files are resources: the extension goes with them.
  const skills =
    resources && declaresSkills(capabilities) ? { directoryRead: skillsDeclaration(capabilities).directoryRead === true } : undefined;
  return {
    ...(skills ? { skills } : {}),
    ...(resources ? { resources } : {}),
    ...(prompts ? { prompts } : {}),
    ...(completions && (resources || prompts) ? { completions } : {}),
    ...(logging ? { logging } : {}),
  };
}

export class OfferCatalog implements OfferSource, Disposable {
  private readonly changeEmitter = new Emitter<OfferChange>();
  private readonly noticeEmitter = new Emitter<ServerNotice>();
  /** The server whose offer (or whether it is served) changed. */
  readonly onDidChange: Event<OfferChange> = this.changeEmitter.event;
  /** Updates of subscribed resources (of shown resources only) and log messages. */
  readonly onNotice: Event<ServerNotice> = this.noticeEmitter.event;
  private readonly subscriptions: Disposable[];

  constructor(
    private readonly manager: OfferManager,
    private readonly logger: Logger = nullLogger,
    private readonly store?: OfferStore,
  ) {
    this.subscriptions = [
      manager.onDidChangeState((event) => containFailure(this.logger, 'offer catalog: handling a state change', () => this.onState(event))),
      manager.onDidChangeOffer((event) =>
        containFailure(this.logger, 'offer catalog: handling an offer change', () => this.onOffer(event.server, event.announced)),
      ),
      manager.onNotice((notice) =>
        containFailure(this.logger, 'offer catalog: handling a server notice', () => this.onServerNotice(notice)),
      ),
      manager.onDidChangeServers(({ removed }) =>
        containFailure(this.logger, 'offer catalog: following the servers', () => this.onRemoved(removed)),
      ),
    ];
  }

  /** Lists again what the running servers (or one) offer, and stores it: after the cache was dropped. */
  async refresh(server?: string): Promise<void> {
    const names = server === undefined ? this.manager.servers().map((view) => view.name) : [server];
    await Promise.all(
      names.map(async (name) => {
        if (this.manager.server(name)?.state.kind !== 'running') return;
        await this.manager.connection(name)?.refreshOffer();
        this.remember(name);
      }),
    );
  }

  /** What chat may use of a served server; undefined for one without an endpoint. */
  offer(server: string): OfferedServer | undefined {
    const view = this.manager.server(server);
    if (!view || !isServed(view.state.kind)) return undefined;
    const { offer, capabilities, instructions, serverInfo } = this.currentOffer(server, view.state);
    const definition = view.definition;
    const resourcesShown = definition?.resources !== false;
    const promptsShown = definition?.prompts !== false;
    return {
      name: server,
      resources: resourcesShown ? (offer?.resources ?? []) : [],
      resourceTemplates: resourcesShown ? (offer?.resourceTemplates ?? []) : [],
      prompts: promptsShown ? (offer?.prompts ?? []) : [],
      // Skill files are resources: hidden with them.
      skills: resourcesShown ? (offer?.skills ?? []) : [],
      ...(capabilities ? { capabilities: offerCapabilities(capabilities, definition) } : {}),
      ...(instructions ? { instructions } : {}),
      serverInfo,
    };
  }

  /** Every served server's offer, in configuration order. */
  offers(): OfferedServer[] {
    return this.manager
      .servers()
      .map((server) => this.offer(server.name))
      .filter((offer): offer is OfferedServer => offer !== undefined);
  }

  /** The gate for requests about a server's resources and prompts. */
  forwardRequest<M extends ForwardedMethod, O extends CallerOptions = CallerOptions>(
    server: string,
    method: M,
    params: Record<string, unknown>,
    options: O = {} as O,
  ): Promise<CallOutcome<O, ForwardedResult<M>>> {
    return Promise.resolve().then(async () => {
      this.assertShown(server, featureOf(method, params));
      // A log level is the connection's to keep and send when the server runs: it wakes no idle
      // server and waits for none (the editor sets one on every server it connects to).
      if (method === 'logging/setLevel') return this.manager.forwardRequest(server, method, params, options);
      return this.manager.forwardRequest(server, method, params, await this.ready(server, options));
    });
  }

  subscribeResource(server: string, uri: string): Promise<void> {
    return Promise.resolve().then(() => {
      this.assertShown(server, 'resources');
      return this.manager.subscribeResource(server, uri);
    });
  }

  unsubscribeResource(server: string, uri: string): Promise<void> {
    return this.manager.unsubscribeResource(server, uri);
  }

  readSkillFile(server: string, skill: Skill, ref?: string, options: CallerOptions = {}): Promise<SkillFile> {
    return Promise.resolve().then(async () => {
      this.assertShown(server, 'resources');
      return this.manager.readSkillFile(server, skill, ref, await this.ready(server, options));
    });
  }

  /** Waits once, in the catalog, for a server that is starting or idle; the connection then waits only if its session drops. */
  private async ready<O extends CallerOptions>(server: string, options: O): Promise<O> {
    if (!this.store) return options;
    const readyBy = await this.store.readyServer(server, { signal: options.signal, readyBy: options.readyBy });
    return readyBy === undefined ? options : { ...options, readyBy };
  }

  dispose(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.changeEmitter.dispose();
    this.noticeEmitter.dispose();
  }

  private assertShown(server: string, feature: 'resources' | 'prompts' | 'logging'): void {
    const view = this.manager.server(server);
    if (!view) throw unknownServer(server);
    if (!isServed(view.state.kind))
      throw new SwitchboardError('SERVER_HELD_BACK', `server "${server}" is ${view.state.kind}`, { notSent: true });
    if (feature !== 'logging' && view.definition?.[feature] === false) {
      throw new SwitchboardError(
        'TOOL_FILTERED',
        `the ${feature} of server "${server}" are hidden from chat ("${feature}": false in its entry)`,
        { notSent: true },
      );
    }
  }

  /**
   * The live offer while the server runs, or once it has listed one; until then (a server still
   * starting in a new window) the cached one, so chat has it before a slow server is up.
   */
  private currentOffer(
    server: string,
    state: ServerState,
  ): {
    offer: ServerOffer | CachedOffer | undefined;
    capabilities: Readonly<Record<string, unknown>> | undefined;
    instructions: string | undefined;
    serverInfo: ServerInfo | undefined;
  } {
    const connection = this.manager.connection(server);
    const live = connection?.offer;
    if (state.kind === 'running')
      return { offer: live, capabilities: state.capabilities, instructions: state.instructions, serverInfo: state.serverInfo };
    const cached = this.store?.cachedOffer(server);
    const liveHasSomething =
      live !== undefined && live.resources.length + live.resourceTemplates.length + live.prompts.length + live.skills.length > 0;
    // What the server said of itself when it last ran, for while it reconnects or idles.
    const last = connection?.lastRunning;
    return {
      offer: liveHasSomething ? live : (cached ?? live),
      capabilities: last?.capabilities ?? cached?.capabilities,
      instructions: last ? last.instructions : cached?.instructions,
      serverInfo: last?.serverInfo ?? cached?.serverInfo,
    };
  }

  private onState(event: ServerStateChangeEvent): void {
    if (event.state.kind === 'running') this.remember(event.server);
    if (isServed(event.state.kind) !== isServed(event.previous.kind) || event.state.kind === 'running')
      this.changeEmitter.fire({ server: event.server, announced: [] });
  }

  /** A removed server's resources and prompts leave the lists its clients have: they are told. */
  private onRemoved(removed: readonly string[]): void {
    for (const server of removed) this.changeEmitter.fire({ server, announced: [] });
  }

  private onOffer(server: string, announced: OfferChange['announced']): void {
    this.remember(server);
    this.changeEmitter.fire({ server, announced });
  }

  /** Stores a running server's offer and capabilities for the next start. */
  private remember(server: string): void {
    const view = this.manager.server(server);
    const offer = this.manager.connection(server)?.offer;
    if (!this.store || view?.state.kind !== 'running' || !offer) return;
    const { instructions } = view.state;
    this.store.rememberOffer(server, {
      resources: offer.resources,
      resourceTemplates: offer.resourceTemplates,
      prompts: offer.prompts,
      skills: offer.skills,
      capabilities: view.state.capabilities,
      serverInfo: view.state.serverInfo,
      ...(instructions ? { instructions } : {}),
    });
  }

  private onServerNotice(notice: ServerNotice): void {
    if (notice.kind === 'resourceUpdated' && this.manager.server(notice.server)?.definition?.resources === false) return;
    this.noticeEmitter.fire(notice);
  }
}
