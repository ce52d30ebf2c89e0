// The one gate for a call from chat: the tool must be in the catalog's snapshot and exposed (or,
// for a call the model found by search, left out only by the budget: `reach: 'eligible'`). A
// server that is not ready (starting, idle, reconnecting) is woken once and waited for once, until
// the call's one deadline (serverWaits.ts); then the tool is checked again, since the live list
// replaced the cached one and the tool may be gone or filtered now.
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { CallerOptions, CallOutcome } from '../connection';
import { isServed, startsOnDemand, type ServerStateKind } from '../state';
import type { CatalogManager } from './catalogManager';
import { SwitchboardError } from '../state';
import { describeFilterRule } from './filters';
import { isForModel } from './modelVisibility';
import type { ServerWaits } from './serverWaits';
import type { CallReach, CatalogServer, CatalogSnapshot } from './types';

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
    reach: CallReach = 'exposed',
  ): Promise<CallOutcome<O, CallToolResult>> {
    const { waits, manager } = this.options;
    const readyBy = options.readyBy ?? waits.readyBy(server);
    let state: ServerStateKind;
    try {
      state = this.resolve(server, tool, reach).state;
    } catch (refusal) {
      // Unknown only because nothing is known of the server's tools yet: known once it is ready.
      if (!waits.isStartingWithoutTools(server)) throw refusal;
      state = 'starting';
    }
    if (state !== 'running') {
      if (startsOnDemand(state)) manager.wake(server, `a call of \`${tool}\``);
      // Registered synchronously, before this returns: diagnostics count it at once.
      await waits.whenReady(server, options.signal, readyBy);
      this.resolve(server, tool, reach);
    }
    // The same deadline goes on: if the session drops before the call is sent, the connection
    // waits for the next one only as long as is left.
    return manager.forwardToolCall(server, tool, args, readyBy === undefined ? options : { ...options, readyBy });
  }

  /** The server entry for a callable tool, or the reason it cannot be called. */
  resolve(server: string, tool: string, reach: CallReach = 'exposed'): CatalogServer {
    const entry = this.options.snapshot().servers.find((candidate) => candidate.name === server);
    if (!entry) throw new SwitchboardError('UNKNOWN_SERVER', `no server named "${server}" is configured`, { notSent: true });
    if (!isServed(entry.state)) throw new SwitchboardError('SERVER_HELD_BACK', `server "${server}" is ${entry.state}`, { notSent: true });
    const found = entry.tools.find((candidate) => candidate.name === tool);
    if (!found) {
      if (entry.state !== 'running' && entry.tools.length === 0) {
        throw new SwitchboardError('SERVER_UNAVAILABLE', `server "${server}" is ${entry.state}, so its tool "${tool}" cannot be called`, {
          notSent: true,
        });
      }
      throw new SwitchboardError('UNKNOWN_TOOL', `server "${server}" has no tool "${tool}"`, { notSent: true });
    }
    // A tool reached through search is a model's call: one MCP Apps keeps for its server's view is not.
    if (reach === 'eligible' && !isForModel(found.tool))
      throw new SwitchboardError(
        'TOOL_FILTERED',
        `tool "${tool}" of server "${server}" is called by its server's view (MCP Apps), not by a model`,
        { notSent: true },
      );
    const rule = found.filteredBy;
    if (!found.exposed && rule && !(reach === 'eligible' && rule.kind === 'budget')) {
      const code = rule.kind === 'disabledSetting' ? 'TOOL_DISABLED' : 'TOOL_FILTERED';
      throw new SwitchboardError(code, `tool "${tool}" of server "${server}" is ${describeFilterRule(rule, server)}`, {
        rule,
        notSent: true,
      });
    }
    return entry;
  }
}
