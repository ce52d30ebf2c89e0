// Wiring only: build the parts, connect them, and hand every disposable to the context.
import path from 'node:path';
import * as vscode from 'vscode';
import { FolderToolCacheStorage, type ToolCatalog } from './core/catalog';
import type { ServerStateChangeEvent } from './core/state';
import { setListenerErrorSink } from './core/base/events';
import type { ServerView } from './core/manager';
import { describeRefetch } from './core/presentation';
import { createRuntime, type SwitchboardRuntime } from './core/runtime';
import { registerCommands } from './editor/commands';
import { refreshCliLauncher, writeCliLauncher } from './editor/cliLauncher';
import { ConfigurationSync } from './editor/configurationSync';
import { editorLocations } from './editor/configurationReader';
import { SourceFileWatchers } from './editor/sourceWatchers';
import { DevWatchers } from './editor/devWatchers';
import { editorHostPlaces, editorToolDirs } from './editor/sandboxTools';
import { ConsentStore } from './editor/consent';
import { editorAnswers } from './editor/hostAnswers';
import { registerDispatcherTools } from './editor/dispatcherTools';
import { SecretInputResolver } from './editor/inputPrompts';
import { LogChannels } from './editor/logChannels';
import { EditorSignInBrowser, SecretStorageStore, signInActions } from './editor/oauthSignIn';
import { DEFINITION_PROVIDER_ID, GatewayDefinitionProvider } from './editor/mcpDefinitions';
import { ResourceViewer } from './editor/resourceViewer';
import { findToolsInteractively, runToolInteractively } from './editor/runTool';
import { ServersUi } from './editor/serversUi';
import { serverToolCounts } from './editor/serversView';
import { SkillInstalls } from './editor/skillInstalls';
import type { TreeSnapshot } from './editor/serversView';
import { SwitchboardContext } from './editor/switchboardContext';
import { ToolCatalogDocument } from './editor/toolCatalogDocument';
import { readCatalogSettings, rememberEditorUserDir, settingsChange, sharingPolicy } from './editor/settings';
import { PRODUCT_VERSION } from './core/base/version';
import { HostLink, hostLauncher, hostPlace, type HostPlace } from './core/machine';
import { ServerSharing } from './core/sharing';

let active: SwitchboardContext | undefined;
/** Ends every server process; deactivate() waits for it so nothing outlives the extension host. */
let shutdown: (() => Promise<void>) | undefined;

/** What the extension returns from activate(): for tests and for other extensions. */
export interface SwitchboardApi {
  servers(): readonly ServerView[];
  readonly onDidChangeState: vscode.Event<ServerStateChangeEvent>;
  /** Resolves once the configuration has been read and every server has settled or passed the startup gate. */
  whenLoaded(): Promise<void>;
  reload(): Promise<void>;
  /** The Servers view as rendered: labels, descriptions, icons, tooltips and tool rows. */
  tree(): TreeSnapshot[];
  /** The tool catalog: what chat sees and why the rest is hidden. */
  readonly catalog: ToolCatalog;
  /** Where this extension's log channels are written. */
  readonly logFolder: string;
  /** The servers published to the editor's MCP client right now (failed ones are left out). */
  publishedServers(): string[];
  /** The version of a server's definition as last published to the editor. */
  publishedVersion(server: string): string | undefined;
  /** The editor stopped a server for its new definition version, and Switchboard started it there again. */
  readonly onDidRestartInEditor: vscode.Event<string>;
  /** When activate() began (epoch ms) and how long it took: bench:editor reads these. */
  readonly activation: { readonly startedAt: number; readonly ms: number };
}

export function activate(extension: vscode.ExtensionContext): SwitchboardApi {
  const startedAt = Date.now();
  const began = performance.now();
  const context = new SwitchboardContext(extension);
  active = context;
  extension.subscriptions.push(context);
  const logs = context.own(new LogChannels());
  context.own(
    setListenerErrorSink((error) =>
      logs.main.error(`an event listener failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    ),
  );
  logs.main.info(`MCP Switchboard ${extension.extension.packageJSON.version} activated`);

  rememberEditorUserDir(extension.globalStorageUri);
  // First: a machine host, if one is needed, starts loading now.
  const sharing = shareThroughTheHost(extension, context, logs, hostPlace());
  const { runtime, consent, gateway, gatewayStarted } = startRuntime(extension, logs);
  shutdown = () => runtime.dispose();
  const { manager, catalog } = runtime;
  const inputs = new SecretInputResolver(extension.secrets, extension.globalState);
  const sync = context.own(
    new ConfigurationSync(manager, inputs, consent, logs, runtime.teams.list, [cliPathOf(extension)], async (servers) => {
      const shared = await sharing.share(servers);
      if (extension.globalState.get<boolean>(SHARED_LAST_TIME) !== sharing.sharesAny)
        void extension.globalState.update(SHARED_LAST_TIME, sharing.sharesAny);
      return shared;
    }),
  );
  // A new machine host (the last one ended), or none: the servers are shared again, or run here.
  context.own(sharing.onDidChange(() => sync.scheduleReload()));
  const devWatchers = context.own(
    new DevWatchers(
      (name) => manager.reconnect(name),
      (name, message) => logs.server(name).info(message),
    ),
  );
  const skills = context.own(new SkillInstalls(manager, runtime.offers, extension.globalState, logs));
  const ui = context.own(new ServersUi(manager, catalog, logs, runtime.offers, (name) => devWatchers.lastRestart(name), skills, sharing));
  const definitions = context.own(
    new GatewayDefinitionProvider(gateway, catalog, gatewayStarted, extension.extension.id, (message) => logs.main.info(message)),
  );
  context.own(vscode.lm.registerMcpServerDefinitionProvider(DEFINITION_PROVIDER_ID, definitions));
  for (const tool of registerDispatcherTools(catalog)) context.own(tool);
  const render = () => ui.render();
  context.own(catalog.onDidChange(() => definitions.refresh()));
  followTheTeams(context, sync, runtime);
  followTheFiles(context, sync, logs, devWatchers, () => {
    definitions.refresh();
    render();
  });
  registerAllCommands({
    extension,
    context,
    runtime,
    logs,
    sync,
    inputs,
    consent,
    skills,
    sharing,
    refreshed: () => {
      definitions.refresh();
      render();
    },
  });
  followTheEditor(context, runtime, sync, render);

  // Until the first load, the view's welcome page says it is reading the settings, not that there
  // are no servers (a consent dialog can come up before the rows do). The gateway listens first:
  // spawning twenty servers holds this thread for about 0.6 s, and the editor's request for our
  // definitions, which needs the gateway's address, waited behind it.
  const loaded = gatewayStarted
    .then(() => sync.reload())
    .then(async () => {
      await vscode.commands.executeCommand('setContext', 'mcpSwitchboard.loaded', true);
    });
  const activation = { startedAt, ms: performance.now() - began };
  // On the extension host's own clock, as the consent dialog's line is (configurationSync.ts): how long after activation it came.
  logs.main.info(`activate() took ${activation.ms.toFixed(1)} ms (began ${began.toFixed(0)} ms after the extension host started)`);
  return {
    activation,
    servers: () => manager.servers(),
    onDidChangeState: ui.onDidChangeState,
    whenLoaded: () => loaded,
    reload: () => sync.reload(),
    tree: () => ui.snapshot(),
    catalog,
    logFolder: extension.logUri.fsPath,
    publishedServers: () => definitions.publishedNames,
    publishedVersion: (server) => definitions.publishedVersion(server),
    onDidRestartInEditor: definitions.onDidRestartInEditor,
  };
}

/**
 * Sources are live: a change to a consulted file (.mcp.json, ~/.codex/config.toml, ...) reloads;
 * each load says which files to watch, and which servers' dev.watch patterns.
 */
function followTheFiles(
  context: SwitchboardContext,
  sync: ConfigurationSync,
  logs: LogChannels,
  devWatchers: DevWatchers,
  loaded: () => void,
): void {
  const watchers = context.own(
    new SourceFileWatchers((file) => {
      logs.main.info(`${file} changed; reloading the servers`);
      sync.scheduleReload();
    }),
  );
  context.own(
    sync.onDidLoad((state) => {
      watchers.watch(state.files);
      devWatchers.update(state.servers);
      loaded();
    }),
  );
}

/** How often a team gateway is listed again: a server added there appears without a reload. */
const TEAM_RELIST_MS = 5 * 60_000;

/**
 * A team gateway's servers change with nothing to watch: they are listed again every few minutes
 * while one is a source, and at once after a sign-in (which is what lets them be listed at all).
 */
function followTheTeams(context: SwitchboardContext, sync: ConfigurationSync, runtime: SwitchboardRuntime): void {
  const timer = setInterval(() => {
    if (sync.loaded.teams.length > 0) sync.scheduleReload();
  }, TEAM_RELIST_MS);
  context.own({ dispose: () => clearInterval(timer) });
  context.own(
    runtime.signIns.onDidSignIn(() => {
      if (sync.loaded.teams.length > 0) sync.scheduleReload();
    }),
  );
}

/** Whether this editor's windows last shared anything (a window that did not starts no host ahead of its configuration). */
const SHARED_LAST_TIME = 'mcpSwitchboard.sharedServersLastTime';

/**
 * The user's own servers run once for every window and agent, in the machine host (core/sharing),
 * which this window starts when there is none: the extension's CLI on the editor's own runtime.
 */
function shareThroughTheHost(extension: vscode.ExtensionContext, context: SwitchboardContext, logs: LogChannels, place: HostPlace) {
  const command = { command: process.execPath, args: [cliPathOf(extension)], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } };
  const link = context.own(
    new HostLink({ place, version: PRODUCT_VERSION, logger: logs.mainLogger, launch: hostLauncher(place, command, logs.mainLogger) }),
  );
  const sharing = context.own(
    new ServerSharing({
      link,
      policy: sharingPolicy,
      workspaceFolders: () => (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
      sandboxPlaces: () => ({ ...editorHostPlaces(), toolDirs: editorToolDirs() }),
      logger: logs.mainLogger,
    }),
  );
  // The host loads while the configuration is read (about 0.2 s of a busy window's start), unless
  // the last window shared nothing: a user without user-level servers gets no host at all.
  if (extension.globalState.get<boolean>(SHARED_LAST_TIME) !== false) void sharing.warm();
  return sharing;
}

/** The core with the editor's loggers, storage and secrets; the gateway starts listening now. */
function startRuntime(extension: vscode.ExtensionContext, logs: LogChannels) {
  const defaultCwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const runtime = createRuntime({
    logger: logs.mainLogger,
    serverLogger: (name) => logs.serverLogger(name),
    connection: { ...(defaultCwd ? { defaultCwd } : {}), sandbox: { toolDirs: editorToolDirs(), hostPlaces: editorHostPlaces } },
    storage: new FolderToolCacheStorage(path.join(extension.globalStorageUri.fsPath, 'tool-cache')),
    settings: readCatalogSettings(),
    secrets: new SecretStorageStore(extension.secrets),
  });
  const consent = new ConsentStore(extension.globalState);
  runtime.relays.setHostAnswers(editorAnswers(consent));
  const gateway = runtime.gateway();
  // The gateway logs its own address once it listens.
  const gatewayStarted = gateway.start().then(
    () => undefined,
    (error: unknown) => logs.main.error(`gateway failed to start: ${String(error)}`),
  );
  return { runtime, consent, gateway, gatewayStarted };
}

/**
 * Agents given `serve --stdio` start it through a launcher that must name this version's CLI: this
 * very bundle, which is the CLI when run as a program (src/main.ts).
 */
function cliPathOf(extension: vscode.ExtensionContext): string {
  return path.join(extension.extensionPath, 'dist', 'extension.js');
}

interface CommandWiring {
  readonly extension: vscode.ExtensionContext;
  readonly context: SwitchboardContext;
  readonly runtime: SwitchboardRuntime;
  readonly logs: LogChannels;
  readonly sync: ConfigurationSync;
  readonly inputs: SecretInputResolver;
  readonly consent: ConsentStore;
  readonly skills: SkillInstalls;
  readonly sharing: ServerSharing;
  /** What chat and the tree show must be brought up to date. */
  readonly refreshed: () => void;
}

function registerAllCommands({
  extension,
  context,
  runtime,
  logs,
  sync,
  inputs,
  consent,
  skills,
  sharing,
  refreshed,
}: CommandWiring): void {
  const { manager, catalog } = runtime;
  const invalidateToolCache = async (server?: string) => {
    const since = Date.now();
    // The host's copies of shared servers first: the window lists them from the host.
    await sharing.refresh(server === undefined ? undefined : [server]);
    await runtime.invalidateCaches(server);
    const names = server ? [server] : manager.servers().map((view) => view.name);
    for (const name of names) logs.server(name).info('tool cache invalidated; tools refetched');
    refreshed();
    void vscode.window.showInformationMessage(describeRefetch(catalog.snapshot(), names, since));
  };
  const catalogDocument = context.own(new ToolCatalogDocument(() => catalog.snapshot()));
  context.own(catalog.onDidChange(() => catalogDocument.refresh()));
  const resources = context.own(new ResourceViewer(runtime.offers, extension.globalStorageUri));
  const signInBrowser = context.own(new EditorSignInBrowser(extension.extension.id, logs));
  context.own(vscode.window.registerUriHandler(signInBrowser));
  const signIns = signInActions(runtime.signIns, signInBrowser, () => manager.servers().map((view) => view.name), logs);
  const cliPath = cliPathOf(extension);
  const userDir = editorLocations().editorUserDir;
  const userSettings = userDir ? path.join(userDir, 'settings.json') : undefined;
  refreshCliLauncher(extension.globalStorageUri.fsPath, cliPath, userSettings, (message) => logs.main.warn(message));
  for (const command of registerCommands({
    manager,
    sync,
    logs,
    inputs,
    consent,
    invalidateToolCache,
    showToolCatalog: () => catalogDocument.show(),
    runTool: (name) => runToolInteractively(catalog, logs, name),
    findTools: () => findToolsInteractively(catalog, logs),
    openResource: (server, uri) => resources.open(server, uri),
    cliLauncher: () => writeCliLauncher(extension.globalStorageUri.fsPath, cliPath, userSettings),
    skills,
    toolCounts: (server) => serverToolCounts(catalog, server),
    ...signIns,
  }))
    context.own(command);
}

/** Settings, workspace trust and folders: what the editor changes under us. */
function followTheEditor(context: SwitchboardContext, runtime: SwitchboardRuntime, sync: ConfigurationSync, render: () => void): void {
  context.own(
    vscode.workspace.onDidChangeConfiguration((event) => {
      const change = settingsChange(event);
      if (!change) return;
      if (change.tools) runtime.catalog.updateSettings(readCatalogSettings());
      render();
      if (change.servers) sync.scheduleReload();
    }),
  );
  context.own(vscode.workspace.onDidGrantWorkspaceTrust(() => void sync.reload()));
  context.own(
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      sync.scheduleReload();
      runtime.manager.notifyRootsChanged();
    }),
  );
}

export async function deactivate(): Promise<void> {
  const stopping = shutdown?.();
  shutdown = undefined;
  active?.dispose();
  active = undefined;
  await stopping;
}
