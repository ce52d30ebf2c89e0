import { isForModel, describeFilterRule, ToolSearch, type CatalogTool, type ToolCatalog } from '../core/catalog';
import { isSwitchboardError } from '../core/state';
import * as vscode from 'vscode';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { errorMessage } from '../core/base/errorMessage';

export const LIST_TOOLS = 'mcpSwitchboard_listTools';
export const CALL_TOOL = 'mcpSwitchboard_callTool';

interface ListInput {
  readonly server?: string;
  readonly query?: string;
  readonly limit?: number;
}

/** Without a query, at most this many tools are listed; the rest are found by searching. */
const MAX_LISTED = 100;

interface CallInput {
  readonly tool: string;
  readonly arguments?: Record<string, unknown>;
}

function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** MCP content → parts a model can read. Binary content is described, not inlined. */
export function toToolResult(result: CallToolResult): vscode.LanguageModelToolResult {
  const parts: vscode.LanguageModelTextPart[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        parts.push(new vscode.LanguageModelTextPart(item.text));
        break;
      case 'image':
      case 'audio':
        parts.push(new vscode.LanguageModelTextPart(`[${item.type} ${item.mimeType}, ${Math.round((item.data.length * 3) / 4)} bytes]`));
        break;
      case 'resource':
        parts.push(
          new vscode.LanguageModelTextPart(
            'text' in item.resource ? `${item.resource.uri}\n${item.resource.text}` : `[resource ${item.resource.uri}]`,
          ),
        );
        break;
      case 'resource_link':
        parts.push(new vscode.LanguageModelTextPart(`[resource link ${item.uri}${item.name ? ` (${item.name})` : ''}]`));
        break;
    }
  }
  if (result.structuredContent !== undefined) parts.push(new vscode.LanguageModelTextPart(JSON.stringify(result.structuredContent)));
  return new vscode.LanguageModelToolResult(parts);
}

/**
 * Maps a qualified name to its tool. Whether it may be called is the catalog's decision; it is
 * asked here too, so that no confirmation is shown for a call the catalog would refuse.
 */
function lookup(catalog: ToolCatalog, qualifiedName: string): CatalogTool {
  // A tool the model found by search may be one the budget left out of chat's list: it is called
  // all the same (reach 'eligible'), through the same gate, filters and confirmation.
  const tool = catalog.toolByQualifiedName(qualifiedName);
  if (!tool) {
    throw new Error(`Unknown tool "${qualifiedName}". Call ${LIST_TOOLS} for the qualified names of the available tools.`);
  }
  if (!isForModel(tool.tool)) throw new Error(`The tool "${qualifiedName}" is called by its server's view (MCP Apps), not by a model.`);
  try {
    catalog.assertCallable(tool.server, tool.name, 'eligible');
  } catch (error) {
    const why = isSwitchboardError(error) && error.rule ? describeFilterRule(error.rule, tool.server) : errorMessage(error);
    throw new Error(`The tool "${qualifiedName}" is not available: ${why}.`);
  }
  return tool;
}

/**
 * Two declared tools that reach every eligible MCP tool: for agents that do not use the MCP
 * provider API, for users who want two tools in their budget instead of hundreds, and for the tools
 * the budget (`tools.maxExposed`) left out of chat's list, which the model finds by searching.
 */
export function registerDispatcherTools(catalog: ToolCatalog): vscode.Disposable[] {
  const list: vscode.LanguageModelTool<ListInput> = {
    invoke: (options) => {
      const { server, query, limit } = options.input ?? {};
      const snapshot = catalog.snapshot();
      const stateOf = (name: string) => snapshot.servers.find((entry) => entry.name === name)?.state;
      if (query?.trim()) {
        // Ranked over every eligible tool, the ones past the budget included.
        const tools = catalog.searchTools(query, { ...(server ? { server } : {}), ...(limit ? { limit } : {}) }).map((hit) => ({
          qualifiedName: hit.qualifiedName,
          server: hit.server,
          description: hit.description,
          inputSchema: hit.inputSchema,
          readOnly: hit.readOnly,
          serverState: stateOf(hit.server),
          why: hit.why,
        }));
        return textResult(JSON.stringify({ tools }, null, 2));
      }
      const eligible = snapshot.servers
        .filter((entry) => !server || entry.name === server)
        .flatMap((entry) => entry.tools.filter(ToolSearch.eligible).map((tool) => ({ tool, state: entry.state })));
      const tools = eligible.slice(0, MAX_LISTED).map(({ tool, state }) => ({
        qualifiedName: tool.qualifiedName,
        server: tool.server,
        description: tool.tool.description ?? '',
        inputSchema: tool.tool.inputSchema,
        readOnly: tool.readOnly,
        serverState: state,
      }));
      const more = eligible.length - tools.length;
      return textResult(
        JSON.stringify(
          more > 0
            ? { tools, more, hint: `${more} more tools: call this again with "query" (what you want to do) to find them.` }
            : { tools },
          null,
          2,
        ),
      );
    },
  };

  const call: vscode.LanguageModelTool<CallInput> = {
    prepareInvocation: (options) => {
      const tool = lookup(catalog, options.input.tool);
      const args = JSON.stringify(options.input.arguments ?? {}, null, 2);
      const invocationMessage = `Calling ${tool.server}/${tool.name}`;
      if (tool.readOnly) return { invocationMessage };
      return {
        invocationMessage,
        confirmationMessages: {
          title: `Run the MCP tool "${tool.name}" on server "${tool.server}"?`,
          message: new vscode.MarkdownString(
            `Server **${tool.server}**, tool **${tool.name}**, with arguments:\n\n\`\`\`json\n${args}\n\`\`\``,
          ),
        },
      };
    },
    invoke: async (options, token) => {
      const tool = lookup(catalog, options.input.tool);
      const abort = new AbortController();
      const subscription = token.onCancellationRequested(() => abort.abort());
      try {
        const result = await catalog.callExposedTool(
          tool.server,
          tool.name,
          options.input.arguments ?? {},
          { signal: abort.signal },
          'eligible',
        );
        if (result.isError) {
          const text = (result.content ?? [])
            .map((item) => (item.type === 'text' ? item.text : ''))
            .join('\n')
            .trim();
          throw new Error(`${tool.server}/${tool.name} reported an error: ${text || 'no details'}`);
        }
        return toToolResult(result);
      } finally {
        subscription.dispose();
      }
    },
  };

  return [vscode.lm.registerTool(LIST_TOOLS, list), vscode.lm.registerTool(CALL_TOOL, call)];
}
