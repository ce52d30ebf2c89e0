import * as vscode from 'vscode';
import type { ToolCatalog } from '../core/catalog';
import { CALL_TOOL } from './dispatcherTools';
import type { LogChannels } from './logChannels';
import { askToolArguments } from './runToolForm';

/** A tool by the name chat knows it by, or by its server and its own name (a tool row). */
export type ToolToRun = string | { readonly server: string; readonly name: string };

/**
 * "Run Tool…": try an exposed tool by hand, the way chat would call it. It goes through
 * vscode.lm.invokeTool, so the editor's own confirmation applies to tools that are not read-only.
 */
export async function runToolInteractively(catalog: ToolCatalog, logs: LogChannels, target?: ToolToRun): Promise<string | undefined> {
  const exposed = catalog.snapshot().servers.flatMap((server) => server.tools.filter((tool) => tool.exposed));
  let name =
    typeof target === 'object' ? exposed.find((tool) => tool.server === target.server && tool.name === target.name)?.qualifiedName : target;
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
