import * as vscode from 'vscode';
import type { ToolCatalog } from '../core/catalog';
import type { McpGateway } from '../core/gateway';

export const DEFINITION_PROVIDER_ID = 'mcpSwitchboard.gateway';

/**
 * Publishes one HTTP server definition per gateway endpoint. The label is the server name, so chat
 * shows tools as `mcp_<server>_<tool>`; `version` is a hash of the server's filtered tool list, so
 * the editor drops its own tool cache exactly when our list changes.
 */
export class GatewayDefinitionProvider implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  private published = '';

  constructor(private readonly gateway: McpGateway, private readonly catalog: ToolCatalog, private readonly started: Promise<unknown>) {}

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
    const key = JSON.stringify(this.publishedServers().map((name) => [name, this.catalog.catalogVersion(name)]));
    if (key === this.published) return;
    this.published = key;
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
    this.changed.dispose();
  }
}
