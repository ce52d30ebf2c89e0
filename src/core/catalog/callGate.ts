// The one gate for a call from chat: the tool must be in the catalog's snapshot and exposed; a
// server that is still starting is waited for (within its requestMs), then checked again, since
// the live list replaced the cached one and the tool may be gone or filtered now.
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { CallerOptions, CallOutcome } from '../connection';
import { isServed, startsOnDemand } from '../state';
import type { CatalogManager } from './catalogManager';
import { CatalogError } from './errors';
import { describeFilterRule } from './filters';
import type { ServerWaits } from './serverWaits';
import type { CatalogServer, CatalogSnapshot } from './types';

export interface ToolCallGateOptions {
  readonly snapshot: () => CatalogSnapshot;
  readonly waits: ServerWaits;
  readonly manager: Pick<CatalogManager, 'wake' | 'forwardToolCall'>;
}

export class ToolCallGate {
  constructor(private readonly options: ToolCallGateOptions) {}

  async call<O extends CallerOptions>(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: O,
  ): Promise<CallOutcome<O, CallToolResult>> {
    const { waits, manager } = this.options;
    let target: CatalogServer;
    try {
      // Synchronous when it can be: a waiting call is registered before this returns.
      target = this.resolve(server, tool);
    } catch (error) {
      target = await this.resolveWhenListed(server, tool, error, options.signal);
    }
    if (target.state !== 'running') {
      if (startsOnDemand(target.state)) manager.wake(server);
      await waits.whenRunning(server, options.signal);
      this.resolve(server, tool);
    }
    return manager.forwardToolCall(server, tool, args, options);
  }

  /** The server entry for a callable tool, or the reason it cannot be called. */
  resolve(server: string, tool: string): CatalogServer {
    const entry = this.options.snapshot().servers.find((candidate) => candidate.name === server);
    if (!entry) throw new CatalogError('UNKNOWN_TOOL', `no server named "${server}" is configured`);
    if (!isServed(entry.state)) throw new CatalogError('SERVER_HELD_BACK', `server "${server}" is ${entry.state}`);
    const found = entry.tools.find((candidate) => candidate.name === tool);
    if (!found) {
      if (entry.state !== 'running' && entry.tools.length === 0) {
        throw new CatalogError('SERVER_UNAVAILABLE', `server "${server}" is ${entry.state}, so its tool "${tool}" cannot be called`);
      }
      throw new CatalogError('UNKNOWN_TOOL', `server "${server}" has no tool "${tool}"`);
    }
    const rule = found.filteredBy;
    if (!found.exposed && rule) {
      const code = rule.kind === 'disabledSetting' ? 'TOOL_DISABLED' : 'TOOL_FILTERED';
      throw new CatalogError(code, `tool "${tool}" of server "${server}" is ${describeFilterRule(rule, server)}`, rule);
    }
    return entry;
  }

  /**
   * A tool of a server that is starting with nothing known of its tools is unknown only for now:
   * its list is waited for (within the connect timeout), once.
   */
  private async resolveWhenListed(server: string, tool: string, refusal: unknown, signal: AbortSignal | undefined): Promise<CatalogServer> {
    const { waits } = this.options;
    if (!waits.isStartingWithoutTools(server)) throw refusal;
    await waits.whenListed(server, signal);
    if (waits.isStartingWithoutTools(server))
      throw new CatalogError('SERVER_UNAVAILABLE', `server "${server}" is still starting; try again shortly`);
    return this.resolve(server, tool);
  }
}
