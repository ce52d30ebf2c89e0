// The one owner of what a server offers: its tools (with the quarantined ones), resources,
// templates and prompts. It lists them (paging and screening: toolList.ts, serverOffer.ts), keeps
// them across reconnects, lists them again on a change notification or when a server's cache hint
// (2026-07-28 `ttlMs`) runs out, decides whether a list changed, and says so once per change.
// Sessions only carry requests; the connection and, through it, the catalog read lists from here.
import type { LoggingMessageNotification, Tool } from '@modelcontextprotocol/client';
import type { Clock, TimerHandle } from '../../base/clock';
import { errorMessage } from '../../base/errorMessage';
import { Emitter, type Event } from '../../base/events';
import { fingerprint } from '../../base/fingerprint';
import { withoutReturns } from '../../base/selfLoop';
import { deepFreeze } from '../../base/freeze';
import type { Logger } from '../../base/logging';
import { SwitchboardError, type RequestPolicy } from '../link';
import { sessionPages } from './listPaging';
import { ResourceSubscriptions } from './resourceSubscriptions';
import { EMPTY_OFFER, listOffer, notifiesChanges, withRelisted, type OfferList, type OfferSession, type ServerOffer } from './serverOffer';
import { logServerMessage, type ServerNotice } from './serverNotices';
import { checkToolArguments } from './toolArguments';
import { listAllTools, type QuarantinedTool, type ToolList } from './toolList';

export interface OfferChangeEvent {
  readonly server: string;
  readonly offer: ServerOffer;
  /**
   * The lists the server announced as changed (list_changed), even when they read the same again:
   * a client in front is told as the server told (a gateway passes announcements on).
   */
  readonly announced: readonly OfferList[];
}

export interface ToolsChangeEvent {
  readonly server: string;
  readonly tools: readonly Tool[];
}

/** What a session offered when it was opened, before it is adopted. */
export interface ListedOffer {
  readonly tools: ToolList;
  readonly offer: ServerOffer;
}

/** One session's relisting of one list after change notifications: one request at a time. */
interface Relist {
  readonly session: OfferSession;
  /** Another change came while a request was in flight: ask once more after it. */
  again: boolean;
  /** The server announced a change since the last request: the next one's result says so. */
  announced: boolean;
  done: Promise<void>;
}

/** A server's cache hint never makes us ask more often than this. */
const MIN_TTL_REFRESH_MS = 1_000;
type ListKind = 'tools' | OfferList;

/** What a session tells the keeper (the session's hooks of these names). */
export interface OfferHooks {
  readonly onToolListChanged: (session: OfferSession) => void;
  readonly onOfferChanged: (session: OfferSession, list: OfferList) => void;
  readonly onResourceUpdated: (session: OfferSession, uri: string) => void;
  readonly onLogMessage: (session: OfferSession, params: LoggingMessageNotification['params']) => void;
}

export interface OfferKeeperOptions {
  readonly server: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The connection's running session; events from any other are stale. */
  readonly activeSession: () => OfferSession | undefined;
  /** Limits of the requests the keeper makes by itself (refreshes, subscriptions). */
  readonly refreshPolicy: () => RequestPolicy;
  /** The tool list changed on a running session; called before onDidChangeTools fires. */
  readonly onToolsReplaced: () => void;
  /** This Switchboard's id: what comes back through it is not taken (base/selfLoop.ts). */
  readonly switchboardId?: string;
}

export class OfferKeeper {
  private readonly toolsEmitter = new Emitter<ToolsChangeEvent>();
  private readonly offerEmitter = new Emitter<OfferChangeEvent>();
  private readonly noticeEmitter = new Emitter<ServerNotice>();
  /** Fires when the tool list differs from the last one. */
  readonly onDidChangeTools: Event<ToolsChangeEvent> = this.toolsEmitter.event;
  /** Fires when the resources, templates or prompts differ from the last ones. */
  readonly onDidChangeOffer: Event<OfferChangeEvent> = this.offerEmitter.event;
  /** Resource updates (of subscribed URIs) and log messages from the server. */
  readonly onNotice: Event<ServerNotice> = this.noticeEmitter.event;
  readonly subscriptions: ResourceSubscriptions;
  private toolList: ToolList = { tools: [], quarantined: [] };
  /** Of the usable tools alone (`fingerprint(tools)`): what the catalog knows a list by, cached or live. */
  private usableFingerprint = fingerprint([]);
  private quarantinedFingerprint = fingerprint([]);
  /** Some session has listed tools: `tools` is a server's answer, not the empty start. */
  private toolsListed = false;
  /**
   * Counts the tool lists asked for or adopted: an answer replaces the list only if nothing newer
   * was asked for or adopted meanwhile, so a slow answer never overwrites a newer list.
   */
  private toolsGeneration = 0;
  private current: ServerOffer = EMPTY_OFFER;
  private currentFingerprint = fingerprint(EMPTY_OFFER);
  private ttlTimer: TimerHandle | undefined;
  /** When each list whose cache hint runs out is to be listed again (epoch ms). */
  private readonly refreshDue = new Map<ListKind, number>();
  /** The tools/list a change notification started, if one is in flight. */
  private readonly relists = new Map<ListKind, Relist>();
  private readonly returnsNoted = new Set<string>();

  constructor(private readonly options: OfferKeeperOptions) {
    this.subscriptions = new ResourceSubscriptions(options.server, options.logger, options.activeSession, options.refreshPolicy);
  }

  /** The usable tools, as last listed (kept while reconnecting); deep-frozen, so shared. */
  get tools(): readonly Tool[] {
    return this.toolList.tools;
  }

  /** `fingerprint(tools)`, computed once per list (the catalog identifies lists by it, rather than hash each again). */
  get toolsFingerprint(): string {
    return this.usableFingerprint;
  }

  /** Whether a server has listed its tools yet (before that, `tools` is empty for want of an answer). */
  get listed(): boolean {
    return this.toolsListed;
  }

  get quarantined(): readonly QuarantinedTool[] {
    return this.toolList.quarantined;
  }

  /**
   * The listed tool a call names, with its arguments checked against the input schema: an unknown
   * or quarantined tool, or arguments that do not fit, is refused here, before anything is sent.
   */
  toolToCall(name: string, args: Record<string, unknown>): Tool {
    const server = this.options.server;
    const tool = this.toolList.tools.find((candidate) => candidate.name === name);
    const quarantined = tool ? undefined : this.toolList.quarantined.find((candidate) => candidate.name === name);
    if (quarantined)
      throw new SwitchboardError('UNKNOWN_TOOL', `tool \`${name}\` of server \`${server}\` is quarantined: ${quarantined.problem}`);
    if (!tool) throw new SwitchboardError('UNKNOWN_TOOL', `server \`${server}\` has no tool \`${name}\``);
    const problems = checkToolArguments(tool, args);
    if (problems.length > 0)
      throw new SwitchboardError('INVALID_ARGUMENTS', `invalid arguments for tool \`${name}\`: ${problems.join('; ')}`);
    return tool;
  }

  /** Frozen, so that readers (the catalog, on every request) share it instead of copying it. */
  get offer(): ServerOffer {
    return this.current;
  }

  /** The session hooks that report here. */
  sessionHooks(): OfferHooks {
    return {
      onToolListChanged: (session) => void this.refresh(session, 'tools'),
      onOfferChanged: (session, list) => void this.refresh(session, list, true),
      onResourceUpdated: (session, uri) => {
        if (session === this.options.activeSession() && this.subscriptions.has(uri))
          this.noticeEmitter.fire({ kind: 'resourceUpdated', server: this.options.server, uri });
      },
      onLogMessage: (session, params: LoggingMessageNotification['params']) => {
        if (session !== this.options.activeSession()) return;
        logServerMessage(this.options.logger, params);
        this.noticeEmitter.fire({ kind: 'log', server: this.options.server, params });
      },
    };
  }

  /** Everything a newly opened session offers, listed at once: a connect waits for the slower list, not their sum. */
  async listAll(session: OfferSession, policy: RequestPolicy): Promise<ListedOffer> {
    const [tools, offer] = await Promise.all([
      listAllTools(sessionPages(session, policy, { retried: true }), session.era, session.screenedBy),
      listOffer(session, policy, this.current),
    ]);
    return { tools, offer };
  }

  /**
   * A new session is running: its lists replace ours (the offer's change event fires now, the
   * tools' on publishTools(), once the connection says it runs), and the subscriptions are made on it.
   */
  adopt(session: OfferSession, listed: ListedOffer): boolean {
    this.toolsGeneration += 1;
    const toolsChanged = this.replaceTools(listed.tools);
    this.replaceOffer(listed.offer);
    this.refreshDue.clear();
    this.scheduleRefresh(session, ['tools', 'resources', 'prompts']);
    void this.subscriptions.renewOn(session);
    return toolsChanged;
  }

  publishTools(): void {
    this.toolsEmitter.fire({ server: this.options.server, tools: this.toolList.tools });
  }

  /** The session ended: its refreshes go with it. */
  detach(): void {
    if (this.ttlTimer !== undefined) this.options.clock.clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    this.refreshDue.clear();
  }

  dispose(): void {
    this.detach();
    this.toolsEmitter.dispose();
    this.offerEmitter.dispose();
    this.noticeEmitter.dispose();
  }

  /** Lists tools from the running session, now, with `policy`; rejects as the request did. */
  async listTools(session: OfferSession, policy: RequestPolicy, budget: { retried: boolean }): Promise<readonly Tool[]> {
    const generation = ++this.toolsGeneration;
    const list = await listAllTools(sessionPages(session, policy, budget), session.era, session.screenedBy);
    if (generation === this.toolsGeneration) this.applyTools(session, list);
    return list.tools;
  }

  /**
   * Lists one list again (after a change notification; `announced`: the server said it changed); a
   * failure is logged and the previous list stays. One request at a time per list: a change
   * announced while one is in flight asks once more after it, however many came. So a burst of
   * list_changed costs at most two requests and, for resources and prompts (whose announcements
   * are passed on to clients even when nothing changed), at most two announcements; the answers
   * apply in order, and the last event carries the server's latest list: what the catalog shows,
   * without listing again itself.
   */
  async refresh(session: OfferSession, list: ListKind, announced = false): Promise<void> {
    if (session !== this.options.activeSession()) return;
    const running = this.relists.get(list);
    if (running?.session === session) {
      running.again = true;
      running.announced ||= announced;
      return running.done;
    }
    const relist: Relist = { session, again: true, announced, done: Promise.resolve() };
    relist.done = (async () => {
      try {
        while (relist.again && session === this.options.activeSession()) {
          relist.again = false;
          const said = relist.announced;
          relist.announced = false;
          await this.relistOnce(session, list, said);
        }
      } finally {
        if (this.relists.get(list) === relist) this.relists.delete(list);
      }
    })();
    this.relists.set(list, relist);
    return relist.done;
  }

  private async relistOnce(session: OfferSession, list: ListKind, announced: boolean): Promise<void> {
    if (list !== 'tools') return this.relistOffer(session, [list], announced);
    const policy = this.options.refreshPolicy();
    await this.listTools(session, { ...policy, maxTotalMs: 0 }, { retried: false }).catch((error: unknown) =>
      this.options.logger.warn(`refreshing tools after tools/list_changed failed: ${errorMessage(error)}`),
    );
  }

  /**
   * Lists resources, templates and prompts (or some of them) again; a failure is logged and the
   * previous lists stay. `announced`: the server said they changed (its list_changed).
   */
  async relistOffer(session: OfferSession, lists: readonly OfferList[] = ['resources', 'prompts'], announced = false): Promise<void> {
    if (session !== this.options.activeSession()) return;
    try {
      const listed = await listOffer(session, this.options.refreshPolicy(), this.current, lists);
      if (session !== this.options.activeSession()) return;
      this.replaceOffer(withRelisted(this.current, listed, lists), announced ? lists : []);
    } catch (error) {
      this.options.logger.warn(`listing ${lists.length === 2 ? 'resources and prompts' : lists[0]} again failed: ${errorMessage(error)}`);
    }
  }

  private applyTools(session: OfferSession, list: ToolList): void {
    if (session !== this.options.activeSession()) return;
    if (!this.replaceTools(list)) return;
    this.options.onToolsReplaced();
    this.publishTools();
  }

  /** Whether the list differs from the last one. Logs each newly quarantined tool once. */
  private replaceTools(listed: ToolList): boolean {
    const { kept, returned } = withoutReturns(listed.tools, this.options.switchboardId);
    this.noteReturns('tools', returned);
    const list = returned === 0 ? listed : { ...listed, tools: kept };
    const known = new Set(this.toolList.quarantined.map((tool) => `${tool.name}\u0000${tool.problem}`));
    for (const tool of list.quarantined) {
      if (!known.has(`${tool.name}\u0000${tool.problem}`)) this.options.logger.warn(`tool quarantined: ${tool.problem}`);
    }
    const usable = fingerprint(list.tools);
    const quarantined = fingerprint(list.quarantined);
    const same = usable === this.usableFingerprint && quarantined === this.quarantinedFingerprint;
    // Frozen once here, so every reader (views, events, the catalog) shares it instead of copying it.
    this.toolList = deepFreeze(list);
    this.usableFingerprint = usable;
    this.quarantinedFingerprint = quarantined;
    this.toolsListed = true;
    return !same;
  }

  private replaceOffer(listed: ServerOffer, announced: readonly OfferList[] = []): void {
    const id = this.options.switchboardId;
    const resources = withoutReturns(listed.resources, id);
    const templates = withoutReturns(listed.resourceTemplates, id);
    const prompts = withoutReturns(listed.prompts, id);
    const skills = withoutReturns(listed.skills, id);
    this.noteReturns(
      'resources, templates, prompts or skills',
      resources.returned + templates.returned + prompts.returned + skills.returned,
    );
    const offer: ServerOffer = {
      ...listed,
      resources: resources.kept,
      resourceTemplates: templates.kept,
      prompts: prompts.kept,
      skills: skills.kept,
    };
    for (const problem of offer.problems) {
      if (!this.current.problems.includes(problem)) this.options.logger.warn(problem);
    }
    const next = fingerprint(offer);
    if (next === this.currentFingerprint && announced.length === 0) return;
    this.current = deepFreeze(offer);
    this.currentFingerprint = next;
    this.offerEmitter.fire({ server: this.options.server, offer: this.current, announced });
  }

  /** Says once (per count) that a gateway listed this Switchboard's own offer back to it. */
  private noteReturns(what: string, count: number): void {
    const key = `${what}:${count}`;
    if (count === 0 || this.returnsNoted.has(key)) return;
    this.returnsNoted.add(key);
    this.options.logger.info(
      `${count} ${what} came back through this Switchboard (this server is a gateway that lists it, in a ring of gateways): not taken again`,
    );
  }

  /**
   * A `ttlMs` on a list says how long it stays fresh. A list of a server that sends no change
   * notifications for it is listed again when that runs out; one that does is trusted to notify;
   * 0 (the SDK's default) promises nothing, so nothing is scheduled. One timer, for the earliest.
   */
  private scheduleRefresh(session: OfferSession, lists: readonly ListKind[]): void {
    const now = this.options.clock.now();
    for (const list of lists) {
      const ttl = list === 'tools' ? this.toolList.ttlMs : this.current.ttlMs?.[list];
      if (notifiesChanges(session.capabilities, list) || ttl === undefined || ttl <= 0) this.refreshDue.delete(list);
      else this.refreshDue.set(list, now + Math.max(MIN_TTL_REFRESH_MS, ttl));
    }
    if (this.ttlTimer !== undefined) this.options.clock.clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    if (this.refreshDue.size === 0) return;
    const at = Math.min(...this.refreshDue.values());
    this.ttlTimer = this.options.clock.setTimeout(() => this.refreshExpired(session), Math.max(0, at - now));
    (this.ttlTimer as { unref?: () => void } | undefined)?.unref?.();
  }

  private refreshExpired(session: OfferSession): void {
    this.ttlTimer = undefined;
    if (session !== this.options.activeSession()) return;
    const now = this.options.clock.now();
    const due = [...this.refreshDue].filter(([, at]) => at <= now).map(([list]) => list);
    for (const list of due) this.refreshDue.delete(list);
    const offerLists = due.filter((list): list is OfferList => list !== 'tools');
    const tools = due.includes('tools') ? this.refresh(session, 'tools') : Promise.resolve();
    const offer = offerLists.length > 0 ? this.relistOffer(session, offerLists) : Promise.resolve();
    void Promise.all([tools, offer]).finally(() => {
      if (session === this.options.activeSession()) this.scheduleRefresh(session, due);
    });
  }
}
