// Add Server from Registry…: search the MCP Registry as you type (the latest version of each
// server, page by page), pick a server and how to install it, then the same name and destination
// steps as Add Server. What the server needs from you is asked for when it first starts (masked
// when secret) and kept in the keychain.
import { displayText } from '../core/base/displayText';
import * as vscode from 'vscode';
import {
  RegistryClient,
  RegistryError,
  type RegistryServer,
  describeEntryLaunch,
  entryFromRegistry,
  installOptions,
  registryServerName,
  type InstallOption,
} from '../core/registry';
import { nameAndSave } from './addServer';
import { registryUrl } from './settings';

const SEARCH_DEBOUNCE_MS = 300;
const TITLE = 'Add MCP Server from Registry';

type ServerItem = vscode.QuickPickItem & {
  readonly server?: RegistryServer;
  readonly more?: string;
  /** A way out when the registry cannot be searched: what Enter on the row does. */
  readonly action?: 'retry' | 'addByHand' | 'registrySetting';
};

/** What the user can do when the registry cannot be reached, each a row Enter acts on. */
function unreachableItems(host: string, error: unknown): ServerItem[] {
  // The label names the registry; the detail line (cut at the picker's width) keeps only the cause.
  const reason = (error instanceof RegistryError ? error.message : String(error)).replace(/^cannot reach the registry at \S+: /, '');
  return [
    // The reason first and whole in the label's own line: the detail line is cut at the width.
    { label: `$(error) ${host} cannot be searched`, detail: displayText(reason), alwaysShow: true, action: 'retry' },
    { label: '$(refresh) Try again', alwaysShow: true, action: 'retry' },
    { label: '$(add) Add a server by its command line or URL instead', alwaysShow: true, action: 'addByHand' },
    {
      label: '$(gear) Use another registry',
      description: 'mcpSwitchboard.registry.url (an enterprise registry)',
      alwaysShow: true,
      action: 'registrySetting',
    },
  ];
}

function installKinds(item: RegistryServer): string {
  const kinds = [...(item.server.packages ?? []).map((pkg) => pkg.registryType), ...(item.server.remotes ?? []).map(() => 'remote')];
  return [...new Set(kinds)].join(', ') || 'nothing to install';
}

function serverItem(item: RegistryServer): ServerItem {
  const { server } = item;
  return {
    label: server.title ?? registryServerName(server.name),
    description: `${server.version} · ${installKinds(item)}`,
    detail: `${server.description} — ${server.name}`,
    server: item,
  };
}

/** Searches while the user types; resolves with the server picked, or undefined. */
function pickServer(client: RegistryClient): Promise<RegistryServer | undefined> {
  const pick = vscode.window.createQuickPick<ServerItem>();
  pick.title = `${TITLE} (1/3): ${new URL(client.url).host}`;
  pick.placeholder = 'Search by name: github, filesystem, postgres…';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let search: AbortController | undefined;
  let shown: ServerItem[] = [];
  const load = (text: string, cursor?: string) => {
    search?.abort();
    const controller = new AbortController();
    search = controller;
    pick.busy = true;
    client.search(text, cursor, controller.signal).then(
      (page) => {
        if (controller.signal.aborted) return;
        shown = [...(cursor ? shown.filter((item) => !item.more) : []), ...page.servers.map(serverItem)];
        if (page.nextCursor) shown.push({ label: '$(more) More results…', alwaysShow: true, more: page.nextCursor });
        if (shown.length === 0) shown = [{ label: `No servers match "${text}"`, alwaysShow: true }];
        // New items would reset the highlighted row under the user's cursor: keep it on the same server.
        const active = pick.activeItems[0]?.server?.server.name;
        pick.items = shown;
        const again = shown.find((item) => item.server?.server.name === active);
        if (again) pick.activeItems = [again];
        pick.busy = false;
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        pick.busy = false;
        pick.items = unreachableItems(new URL(client.url).host, error);
      },
    );
  };
  return new Promise((resolve) => {
    pick.onDidChangeValue((value) => {
      clearTimeout(timer);
      timer = setTimeout(() => load(value), SEARCH_DEBOUNCE_MS);
    });
    pick.onDidAccept(() => {
      // Enter on a highlighted row: selectedItems can be empty while the items were just replaced.
      const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      if (chosen?.more) return load(pick.value, chosen.more);
      if (chosen?.action === 'retry') return load(pick.value);
      if (chosen?.action === 'addByHand' || chosen?.action === 'registrySetting') {
        pick.hide();
        void (chosen.action === 'addByHand'
          ? vscode.commands.executeCommand('mcpSwitchboard.addServer')
          : vscode.commands.executeCommand('workbench.action.openSettings', 'mcpSwitchboard.registry.url'));
        return;
      }
      if (!chosen?.server) return;
      resolve(chosen.server);
      pick.hide();
    });
    pick.onDidHide(() => {
      clearTimeout(timer);
      search?.abort();
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
    load('');
  });
}

async function pickInstall(item: RegistryServer): Promise<InstallOption | undefined> {
  const options = installOptions(item.server);
  const usable = options.filter((option) => !option.unsupported);
  if (usable.length === 0) {
    void vscode.window.showWarningMessage(
      `${item.server.name} cannot be added: ${options.map((option) => `${option.label}: ${option.unsupported ?? ''}`).join('; ') || 'it has no package or remote'}.`,
    );
    return undefined;
  }
  if (options.length === 1) return usable[0];
  const picked = await vscode.window.showQuickPick(
    options.map((option) => ({
      label: option.label,
      description: option.unsupported ? `cannot run here: ${option.unsupported}` : undefined,
      option,
    })),
    { title: `${TITLE}: how to run ${item.server.name}?`, ignoreFocusOut: true },
  );
  if (picked?.option.unsupported) {
    void vscode.window.showWarningMessage(`${picked.label}: ${picked.option.unsupported}.`);
    return undefined;
  }
  return picked?.option;
}

export async function addServerFromRegistry(): Promise<string | undefined> {
  const client = new RegistryClient(registryUrl());
  const item = await pickServer(client);
  if (!item) return undefined;
  const option = await pickInstall(item);
  if (!option) return undefined;
  const made = entryFromRegistry(item.server, option.choice);
  if (made.refused.length > 0) {
    void vscode.window.showWarningMessage(
      `${displayText(item.server.name)} was not added: its registry entry ${made.refused.map((problem) => displayText(problem)).join('; ')}. Add it by hand (Add Server) only if you trust what it runs.`,
    );
    return undefined;
  }
  // The exact command line and environment, read before anything is written.
  const name = await nameAndSave(
    made.entry,
    made.name,
    TITLE,
    describeEntryLaunch(made.entry)
      .map((line) => displayText(line))
      .join(', '),
  );
  if (name === undefined) return undefined;
  const asks = made.inputs.map((input) => `${input.id}${input.secret ? ' (secret)' : ''}`);
  const inputs =
    asks.length > 0
      ? ` It will ask for ${asks.join(', ')} when it starts, and keep ${asks.length === 1 ? 'it' : 'them'} in your keychain.`
      : '';
  const logs = 'Show Logs';
  void vscode.window
    .showInformationMessage(
      `Added "${name}": ${item.server.name} ${item.server.version} (${option.label}).${inputs} Its row shows whether it runs.`,
      logs,
    )
    .then((choice) => {
      if (choice === logs) void vscode.commands.executeCommand('mcpSwitchboard.showLogs', name);
    });
  return name;
}
