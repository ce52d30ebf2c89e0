import * as vscode from 'vscode';
import { ToolSearch, type CatalogTool, type ToolCatalog } from '../core/catalog';
import { CALL_TOOL, LIST_TOOLS } from './dispatcherTools';
import type { LogChannels } from './logChannels';
import { askToolArguments } from './runToolForm';

/**
 * A tool by the name chat knows it by, or by its server and its own name (a tool row), or one that
 * search found (`found`: it may be past the budget, and is called as chat would call it then).
 */
export type ToolToRun = string | { readonly server: string; readonly name: string } | { readonly found: string };

/**
 * "Run Tool…": try an exposed tool by hand, the way chat would call it. It goes through
 * vscode.lm.invokeTool, so the editor's own confirmation applies to tools that are not read-only.
 */
export async function runToolInteractively(catalog: ToolCatalog, logs: LogChannels, target?: ToolToRun): Promise<string | undefined> {
  const found = typeof target === 'object' && 'found' in target;
  // A found tool may be one the budget left out of chat's list: any eligible tool can be run then.
  const exposed = catalog.snapshot().servers.flatMap((server) => server.tools.filter(found ? ToolSearch.eligible : (tool) => tool.exposed));
  let name =
    typeof target === 'object'
      ? 'found' in target
        ? target.found
        : exposed.find((tool) => tool.server === target.server && tool.name === target.name)?.qualifiedName
      : target;
  // A row's tool that chat no longer gets (switched off meanwhile): nothing to run.
  if (typeof target === 'object' && name === undefined) return undefined;
  if (!name) {
    const picked = await vscode.window.showQuickPick(
      exposed.map((tool) => ({ label: tool.qualifiedName, description: tool.readOnly ? 'read-only' : '', detail: tool.tool.description })),
      { title: 'Run which MCP tool?', matchOnDetail: true },
    );
    name = picked?.label;
  }
  const tool = exposed.find((candidate) => candidate.qualifiedName === name);
  if (!tool) return undefined;
  // A form of the arguments, the required ones filled in with placeholders, checked against the
  // tool's schema: a call that does not fit cannot be sent.
  const args = await askToolArguments(tool.tool, `Arguments for ${tool.server}/${tool.name}`);
  if (args === undefined) return undefined;
  const result = await vscode.lm.invokeTool(CALL_TOOL, {
    input: { tool: tool.qualifiedName, arguments: args },
    toolInvocationToken: undefined,
  });
  const output = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('\n');
  logs.main.info(`${tool.server}/${tool.name} returned: ${output}`);
  logs.main.show(true);
  return output;
}

/** "matched add, two": the words of the search's reason, without the fields (the row is short). */
function matchedWords(why: string | undefined): string {
  const found = [...(why ?? '').matchAll(/“([^”]+)”/g)].map((match) => match[1]);
  return found.length > 0 ? `matched ${found.join(', ')}` : '';
}

/** One tool of what the dispatcher's search returns. */
interface FoundTool {
  readonly qualifiedName: string;
  readonly server: string;
  readonly description: string;
  /** Why the search found it (absent from a listing without a query). */
  readonly why?: string;
}

/**
 * "Find Tools…": the search chat gets through #mcpTools, without a chat model. The query goes to the
 * dispatcher tool itself (what a model would send), its answer is listed, and the tool picked runs
 * as Run Tool runs it, past the budget or not.
 */
export async function findToolsInteractively(catalog: ToolCatalog, logs: LogChannels): Promise<string | undefined> {
  const query = await vscode.window.showInputBox({
    title: 'Find MCP Tools',
    prompt:
      'What do you want to do? The search chat uses (#mcpTools) ranks every tool your filters let through, the ones past the budget too.',
    placeHolder: 'e.g. add two numbers',
    ignoreFocusOut: true,
  });
  if (!query?.trim()) return undefined;
  const result = await vscode.lm.invokeTool(LIST_TOOLS, { input: { query }, toolInvocationToken: undefined });
  const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
  const tools = (JSON.parse(text) as { tools: FoundTool[] }).tools;
  if (tools.length === 0) {
    void vscode.window.showInformationMessage(`MCP Switchboard: no tool matches “${query}”.`);
    return undefined;
  }
  const byName = new Map<string, CatalogTool>(
    catalog.snapshot().servers.flatMap((server) => server.tools.map((tool) => [tool.qualifiedName, tool] as const)),
  );
  const picked = await vscode.window.showQuickPick(
    tools.map((tool, index) => ({
      label: tool.qualifiedName,
      description: [
        `${index + 1}. ${byName.get(tool.qualifiedName)?.exposed ? 'in chat’s list' : 'past the budget: chat finds it by search'}`,
        matchedWords(tool.why),
      ]
        .filter(Boolean)
        .join(' · '),
      detail: tool.description,
    })),
    { title: `${tools.length} tool${tools.length === 1 ? '' : 's'} for “${query}”, best first: pick one to run it`, matchOnDetail: true },
  );
  return picked ? runToolInteractively(catalog, logs, { found: picked.label }) : undefined;
}
