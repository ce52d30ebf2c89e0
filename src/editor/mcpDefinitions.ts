import * as vscode from 'vscode';
import type { ToolCatalog } from '../core/catalog';
import type { McpGateway } from '../core/gateway';

export const DEFINITION_PROVIDER_ID = 'mcpSwitchboard.gateway';

/** The editor's command that starts one of its MCP servers by definition id. */
const START_SERVER_COMMAND = 'workbench.mcp.startServer';

/**
 * Publishes one HTTP server definition per gateway endpoint. The label is the server name, so chat
 * shows tools as `mcp_<server>_<tool>`; `version` is a hash of the server's filtered tool list, so
 * the editor drops its own tool cache exactly when our list changes.
 *
 * The editor stops a server whose definition changed and starts it again only on the next chat
 * request: until then its tools are gone from chat's tool list and its views show it stopped.
 * So when a new version reaches a server the editor had running (its client had a session on the
 * endpoint), the editor's stop (it ends that session) is answered by starting it again, with the
 * new definition.
 */
export class GatewayDefinitionProvider implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  private readonly restarted = new vscode.EventEmitter<string>();
  /** The editor stopped a server for its new version, and it was started there again: its name. */
  readonly onDidRestartInEditor = this.restarted.event;
  private published = new Map<string, string | undefined>();
  /** Servers the editor had running when their version changed: started again once it stops them. */
  private readonly restartWhenStopped = new Set<string>();
  /** Servers being started again in the editor right now (their session may not exist yet). */
  private readonly restarting = new Set<string>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly gateway: McpGateway,
    private readonly catalog: ToolCatalog,
    private readonly started: Promise<unknown>,
    /** The extension's id: the editor names our servers `<id in lower case>/<label>`. */
    private readonly extensionId: string,
    private readonly log: (message: string) => void,
  ) {
    this.subscription = gateway.onDidCloseServerSession((server) => this.sessionClosed(server));
  }

  /**
   * The endpoints the editor should list. A server in `error` is left out until it recovers: the
   * editor would connect to its (empty) endpoint and show it as "Running · 0 tools". Starting and
   * reconnecting servers stay, since calls to them wait.
   */
  private publishedServers(): string[] {
    const failed = new Set(this.catalog.snapshot().servers.filter((server) => server.state === 'error').map((server) => server.name));
    return this.gateway.servers().filter((name) => !failed.has(name));
  }

  private definitions(): vscode.McpHttpServerDefinition[] {
    const headers = { Authorization: `Bearer ${this.gateway.token}` };
    return this.publishedServers().map((name) =>
      new vscode.McpHttpServerDefinition(name, vscode.Uri.parse(this.gateway.endpointUrl(name)), headers, this.catalog.catalogVersion(name) ?? 'empty'));
  }

  /** Fires the change event only when the set of servers or a version changed. */
  refresh(): void {
    const next = new Map(this.publishedServers().map((name) => [name, this.catalog.catalogVersion(name)]));
    if (JSON.stringify([...next]) === JSON.stringify([...this.published])) return;
    for (const [name, version] of next) {
      const editorRunsIt = this.gateway.sessionsOn(name) > 0 || this.restarting.has(name);
      if (this.published.has(name) && this.published.get(name) !== version && editorRunsIt) this.restartWhenStopped.add(name);
    }
    this.published = next;
    this.changed.fire();
  }

  /** The names published right now, for tests. */
  get publishedNames(): string[] {
    return this.publishedServers();
  }

  async provideMcpServerDefinitions(): Promise<vscode.McpHttpServerDefinition[]> {
    await this.started;
    return this.definitions();
  }

  resolveMcpServerDefinition(definition: vscode.McpHttpServerDefinition): vscode.McpHttpServerDefinition {
    // The token is per activation; hand out the current one even if the editor cached an old definition.
    definition.headers = { ...definition.headers, Authorization: `Bearer ${this.gateway.token}` };
    return definition;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
    this.restarted.dispose();
  }

  private sessionClosed(server: string): void {
    if (!this.restartWhenStopped.delete(server) || !this.published.has(server)) return;
    const id = `${this.extensionId.toLowerCase()}/${server}`;
    this.log(`${server}: its definition changed, so the editor stopped it; starting it again there`);
    // An editor without the command (or with the server gone meanwhile) simply starts it on the next chat request.
    // Resolves once the editor has its tools live (its session exists from then on).
    this.restarting.add(server);
    void Promise.resolve(vscode.commands.executeCommand(START_SERVER_COMMAND, id, { waitForLiveTools: true }))
      .then(
        () => this.restarted.fire(server),
        (error: unknown) => this.log(`${server}: the editor did not start it again: ${String(error)}`),
      )
      .finally(() => this.restarting.delete(server));
  }
}
