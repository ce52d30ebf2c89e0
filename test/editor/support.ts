import * as vscode from 'vscode';
import type { ServerState } from '../../src/core/state/serverState';
import type { SwitchboardApi } from '../../src/extension';
import { waitFor as waitForEvent } from '../core/support/waitFor';

export const EXTENSION_ID = 'switchboard-labs.mcp-switchboard';

interface ContributedCommand {
  readonly command: string;
}

export function switchboardExtension(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed in this editor`);
  return extension;
}

export function contributedCommands(extension: vscode.Extension<unknown>): string[] {
  const commands = (extension.packageJSON as { contributes?: { commands?: ContributedCommand[] } }).contributes?.commands ?? [];
  return commands.map((entry) => entry.command);
}

/** Resolves with `probe()` once it is defined, checked now and on each `event`; the shared wait of the tests. */
export function waitFor<T>(probe: () => T | undefined, event: vscode.Event<unknown>, timeoutMs = 10_000): Promise<T> {
  return waitForEvent({ now: probe, event, describe: () => 'the condition', timeoutMs });
}

export async function switchboardApi(): Promise<SwitchboardApi> {
  const extension = vscode.extensions.getExtension<SwitchboardApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed in this editor`);
  const api = await extension.activate();
  await api.whenLoaded();
  return api;
}

export function stateOf(api: SwitchboardApi, name: string): ServerState | undefined {
  return api.servers().find((view) => view.name === name)?.state;
}

/** Resolves with the server's state once `predicate` holds, driven by the extension's state events. */
export function waitForServer(
  api: SwitchboardApi,
  name: string,
  predicate: (state: ServerState) => boolean,
  timeoutMs = 20_000,
): Promise<ServerState> {
  return waitFor(
    () => {
      const state = stateOf(api, name);
      return state && predicate(state) ? state : undefined;
    },
    api.onDidChangeState as vscode.Event<unknown>,
    timeoutMs,
  ).catch((error: unknown) => {
    throw new Error(`${name}: ${String(error)}; last state ${JSON.stringify(stateOf(api, name))}`);
  });
}

export const isKind = (kind: ServerState['kind']) => (state: ServerState) => state.kind === kind;

/** The text parts of a tool result, joined. */
export function toolText(result: vscode.LanguageModelToolResult): string {
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}
