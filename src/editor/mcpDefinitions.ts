import * as vscode from 'vscode';
import { isSettling, type ToolCatalog } from '../core/catalog';
import { definitionVersion, type McpGateway } from '../core/gateway';

export const DEFINITION_PROVIDER_ID = 'mcpSwitchboard.gateway';

/** When to ask the editor to connect to a new endpoint, again while it has not (it takes in definitions after 500 ms). */
const EDITOR_START_DELAYS_MS = [600, 1_000, 2_000, 4_000, 8_000];

/** The editor's commands that stop and start one of its MCP servers by definition id. */
const STOP_SERVER_COMMAND = 'workbench.mcp.stopServer';
const START_SERVER_COMMAND = 'workbench.mcp.startServer';

/**
 * Publishes one HTTP server definition per gateway endpoint. The label is the server name, so chat
 * shows tools as `mcp_<server>_<tool>`; `version` is a hash of the server's filtered tool list, so
 * the editor drops its own tool cache exactly when our list changes.
 *
 * The editor stops a server whose definition changed (one it is still starting, too) and starts it
 * again only on the next chat request: until then chat has no live tools of it, and the editor's
 * views show it stopped. So a version is held while the editor has a session on the endpoint: that
 * session learns of a new list by the gateway's `tools/list_changed`, live, and the editor's cache
 * takes the new list under the held version. The version moves on once the session has ended
 * (measured: a new version for each of 20 starting servers cost the editor a stop and a start of
 * every one, 1.5-2.4 s before chat had their tools). Each definition's URL carries its version
 * (`?v=`), the gateway says with which version a closed session was opened, and a session the
 * editor ended on an outdated version (one it opened as the version moved) is answered by starting
 * the server there again, with the current definition. A session ended on the current version (the
 * user stopped the server) is left alone.
 */
export class GatewayDefinitionProvider implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  private readonly restarted = new vscode.EventEmitter<string>();
  /** The editor stopped a server for its new version, and it was started there again: its name. */
  readonly onDidRestartInEditor = this.restarted.event;
  /** The version published for each server. */
  private published = new Map<string, string>();
  private readonly startedInEditor = new Set<string>();
  /** Servers whose definition the editor resolved (it is starting them), until their session ends. */
  private readonly resolved = new Set<string>();
  /**
   * Servers Switchboard asked the editor to start, until it connects (or is given up on). The
   * editor may resolve the definition at any moment until then, however late (twenty servers
   * booting on two cores kept it from doing so for 3 s, and its start command had returned): a new
   * version meanwhile has it stop the server it just connected, and start it again.
   */
  private readonly starting = new Set<string>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private disposed = false;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly gateway: McpGateway,
    private readonly catalog: ToolCatalog,
    private readonly started: Promise<unknown>,
    /** The extension's id: the editor names our servers `<id in lower case>/<label>`. */
    private readonly extensionId: string,
    private readonly log: (message: string) => void,
  ) {
    // The editor's HTTP client runs in this extension host, and its first request, even to a
    // loopback http URL, has its proxy agent load the system's CA certificates: 1.1-1.5 s of CPU on
    // the side-by-side bench, on the path of the editor's first connection to our servers. One
    // request of our own now has that done while the servers start.
    void started
      .then(() => fetch(`${gateway.url}/healthz`))
      .then(
        (response) => response.body?.cancel(),
        () => undefined,
      );
    this.subscription = gateway.onDidCloseServerSession((server, version) => {
      this.resolved.delete(server);
      this.sessionClosed(server, version);
      // A version held for the session moves on now.
      this.refresh();
    });
  }

  /**
   * The endpoints the editor should list. A server in `error`, or stopped from our view, is left
   * out until it runs again: the editor would connect to its (empty) endpoint and show it as
   * "Running · 0 tools". Starting and reconnecting servers stay, since calls to them wait.
   */
  private current(): Map<string, string> {
    const snapshot = this.catalog.snapshot();
    const failed = new Set(
      snapshot.servers.filter((server) => server.state === 'error' || server.state === 'stopped').map((server) => server.name),
    );
    const settling = isSettling(snapshot);
    return new Map(
      this.gateway
        .servers()
        .filter((name) => !failed.has(name))
        .map((name) => [
          name,
          definitionVersion({
            published: this.published.get(name),
            current: this.catalog.catalogVersion(name),
            settling,
            startRequested: this.starting.has(name),
            resolved: this.resolved.has(name),
            sessions: this.gateway.serverSessionCount(name),
          }),
        ]),
    );
  }

  private definitions(): vscode.McpHttpServerDefinition[] {
    const headers = { Authorization: `Bearer ${this.gateway.token}` };
    return [...this.current()].map(([name, version]) => {
      const uri = vscode.Uri.parse(`${this.gateway.endpointUrl(name)}?v=${encodeURIComponent(version)}`);
      return new vscode.McpHttpServerDefinition(name, uri, headers, version);
    });
  }

  /** Fires the change event only when the set of servers or a version changed. */
  refresh(): void {
    const next = this.current();
    if (JSON.stringify([...next]) === JSON.stringify([...this.published])) return;
    this.published = next;
    // A server that comes back (started again, fixed) is connected in the editor again.
    for (const name of this.startedInEditor) if (!next.has(name)) this.startedInEditor.delete(name);
    this.changed.fire();
  }

  /** The names published right now, for tests. */
  publishedVersion(server: string): string | undefined {
    return this.published.get(server);
  }

  get publishedNames(): string[] {
    return [...this.current().keys()];
  }

  async provideMcpServerDefinitions(): Promise<vscode.McpHttpServerDefinition[]> {
    await this.started;
    const definitions = this.definitions();
    this.startInEditor(definitions.map((definition) => definition.label));
    return definitions;
  }

  /**
   * The editor lists a provider's server as Stopped, with no tools in chat's Configure Tools, until
   * it has connected to it once: on the first chat request, by default. Our servers are already up
   * (or idle with their tools cached), so the editor is asked to connect to each new endpoint now,
   * and its own views agree with ours. Each server once per window: one the user stops in the
   * editor's view stays stopped there. `chat.mcp.autostart: never` is respected.
   */
  private startInEditor(names: readonly string[]): void {
    if (vscode.workspace.getConfiguration('chat.mcp').get<string>('autostart') === 'never') return;
    for (const name of names.filter((candidate) => !this.startedInEditor.has(candidate))) {
      this.startedInEditor.add(name);
      this.connectInEditor(name, 0);
    }
  }

  /**
   * The editor takes in new definitions half a second after it gets them, and its start command
   * does not say whether it found the server; the gateway does (the editor's session on the
   * endpoint). So: try, look, and try again a bounded number of times.
   */
  private connectInEditor(name: string, attempt: number, connected?: () => void): void {
    if (this.disposed || !this.current().has(name)) return this.stopWaiting(name);
    if (this.gateway.serverSessionCount(name) > 0) {
      this.stopWaiting(name);
      connected?.();
      return;
    }
    const delay = EDITOR_START_DELAYS_MS[attempt];
    if (delay === undefined) {
      this.stopWaiting(name);
      this.log(`${name}: the editor did not connect to it; its own MCP views list it stopped until the next chat request starts it`);
      return;
    }
    this.starting.add(name);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void Promise.resolve(vscode.commands.executeCommand(START_SERVER_COMMAND, this.editorId(name), { waitForLiveTools: true })).then(
        () => this.connectInEditor(name, attempt + 1, connected),
        (error: unknown) => {
          this.stopWaiting(name);
          this.log(`${name}: the editor could not start it: ${String(error)}`);
        },
      );
    }, delay);
    this.timers.add(timer);
  }

  private stopWaiting(name: string): void {
    if (this.starting.delete(name)) this.refresh();
  }

  private editorId(server: string): string {
    return `${this.extensionId.toLowerCase()}/${server}`;
  }

  resolveMcpServerDefinition(definition: vscode.McpHttpServerDefinition): vscode.McpHttpServerDefinition {
    this.resolved.add(definition.label);
    // The token is per activation; hand out the current one even if the editor cached an old definition.
    definition.headers = { ...definition.headers, Authorization: `Bearer ${this.gateway.token}` };
    return definition;
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.subscription.dispose();
    this.changed.dispose();
    this.restarted.dispose();
  }

  /** A session opened on an older version of the server's definition ended: the editor stopped it for the new one. */
  private sessionClosed(server: string, version: string | undefined): void {
    const current = this.published.get(server);
    // A server no longer published (it failed, or was stopped from our view) is not started again.
    if (version === undefined || current === undefined || version === current) return;
    const id = this.editorId(server);
    this.log(`${server}: its definition changed, so the editor stopped it; starting it again there`);
    // The session ends while the editor is still stopping the server, and a start then is ignored:
    // its stop command resolves once the server is stopped. A start can still be lost (the editor
    // takes in the new definition meanwhile), so it is tried and checked as a first connection is,
    // until the gateway sees the editor's session. An editor without these commands (or with the
    // server gone meanwhile) simply starts it on the next chat request.
    void Promise.resolve(vscode.commands.executeCommand(STOP_SERVER_COMMAND, id)).then(
      () => this.connectInEditor(server, 0, () => this.restarted.fire(server)),
      (error: unknown) => this.log(`${server}: the editor did not start it again: ${String(error)}`),
    );
  }
}
