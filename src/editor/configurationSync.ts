import * as vscode from 'vscode';
import {
  isInvalidServer,
  loadConfiguration,
  type ConfigDiagnostic,
  type ServerDefinition,
  type StdioServerDefinition,
  type TeamLister,
} from '../core/config';
import type { ConfiguredServer, ServerBlock, ServerManager } from '../core/manager';
import { withConsentedSandbox, type ConsentAnswer, type ConsentStore } from './consent';
import { askConsent, askConsentForAll, type BatchAnswer } from './consentDialogs';
import { workspaceSandboxMode, type WorkspaceSandboxMode } from './settings';
import { isWorkspaceDefined, readConfigurationInput } from './configurationReader';
import type { SecretInputResolver } from './inputPrompts';
import type { LogChannels } from './logChannels';

export const SETTINGS_DEBOUNCE_MS = 300;

export interface LoadedState {
  readonly servers: readonly ConfiguredServer[];
  readonly diagnostics: readonly ConfigDiagnostic[];
  /** The source files the load consulted (watched for changes). */
  readonly files: readonly string[];
  /** The team gateways the load consulted (listed again from time to time, and after a sign-in). */
  readonly teams: readonly string[];
}

export type ConsentPrompt = (definition: StdioServerDefinition, mode: WorkspaceSandboxMode) => Thenable<ConsentAnswer | 'dismissed'>;
export type BatchConsentPrompt = (definitions: readonly StdioServerDefinition[], mode: WorkspaceSandboxMode) => Thenable<BatchAnswer>;

/**
 * Settings → configuration → manager. Decides, for every server, whether the editor holds it back
 * (Restricted Mode, consent, missing input), and reconciles the manager so that only servers whose
 * configuration changed restart. Reloads never overlap: a change during a reload runs once more after.
 */
export class ConfigurationSync implements vscode.Disposable {
  private running: Promise<void> | undefined;
  private again = false;
  private debounce: NodeJS.Timeout | undefined;
  private readonly loadedEmitter = new vscode.EventEmitter<LoadedState>();
  readonly onDidLoad = this.loadedEmitter.event;
  private latest: LoadedState = { servers: [], diagnostics: [], files: [], teams: [] };
  private readonly asking = new Set<string>();
  /** Servers whose next changed entry the user made from a menu, until when (ms): approveNextChange. */
  private readonly approved = new Map<string, number>();

  constructor(
    private readonly manager: ServerManager,
    private readonly inputs: SecretInputResolver,
    private readonly consent: ConsentStore,
    private readonly logs: LogChannels,
    private readonly teams: TeamLister | undefined,
    /** The scripts this extension's CLI runs from: an entry that runs one is Switchboard itself. */
    private readonly launchers: readonly string[],
    /** What the manager runs of what was loaded: the user's servers shared through the machine host (core/sharing). */
    private readonly share: (servers: readonly ConfiguredServer[]) => Promise<ConfiguredServer[]> = async (servers) => [...servers],
    private readonly prompt: ConsentPrompt = askConsent,
    private readonly promptAll: BatchConsentPrompt = askConsentForAll,
  ) {}

  get loaded(): LoadedState {
    return this.latest;
  }

  /** For settings changes: waits for the typing to stop. */
  scheduleReload(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reload(), SETTINGS_DEBOUNCE_MS);
  }

  reload(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.reloadOnce();
        } catch (error) {
          this.logs.main.error(
            `Reloading the configuration failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          );
        }
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async reloadOnce(): Promise<void> {
    const { input, diagnostics: readDiagnostics } = await readConfigurationInput();
    const loaded = await loadConfiguration(
      { ...input, launchers: this.launchers, ...(this.teams ? { teams: this.teams } : {}) },
      this.inputs,
    );
    const diagnostics = [...readDiagnostics, ...loaded.diagnostics];
    for (const diagnostic of diagnostics) {
      const where = diagnostic.path ? ` ${diagnostic.path}` : '';
      const line = `${diagnostic.severity}${where}: ${diagnostic.message}`;
      if (diagnostic.severity === 'error') this.logs.main.error(line);
      else this.logs.main.warn(line);
    }
    const blocks = new Map<string, ServerBlock>();
    const needConsent: StdioServerDefinition[] = [];
    for (const server of loaded.servers) {
      if (isInvalidServer(server)) continue;
      await this.applyApproval(server);
      const block = this.blockFor(server);
      if (block) blocks.set(server.name, block);
      if (block?.reason === 'consentPending' && server.transport === 'stdio') needConsent.push(server);
    }
    this.logs.retain(new Set(loaded.servers.map((server) => server.name)));
    this.latest = { servers: loaded.servers, diagnostics, files: loaded.files, teams: loaded.teams };
    await this.manager.update(await this.share(loaded.servers.map((server) => this.asConsented(server))), blocks);
    this.loadedEmitter.fire(this.latest);
    void this.askForConsent(needConsent);
  }

  /**
   * The user changes a server's entry from a menu (Run Sandboxed, Run Unsandboxed): for a
   * workspace-defined server they had allowed, that choice is their consent to what the entry
   * becomes, so the changed entry (a new consent key) is not asked about again. For a minute.
   */
  approveNextChange(name: string): void {
    const definition = this.latest.servers.find((server) => server.name === name && !isInvalidServer(server)) as
      ServerDefinition | undefined;
    if (!definition || definition.transport !== 'stdio' || !isWorkspaceDefined(definition.source)) return;
    const answer = this.consent.answer(definition);
    if (answer === 'granted' || answer === 'sandboxed') this.approved.set(name, Date.now() + 60_000);
  }

  private async applyApproval(server: ServerDefinition): Promise<void> {
    const until = this.approved.get(server.name);
    if (until === undefined || server.transport !== 'stdio' || !isWorkspaceDefined(server.source)) return;
    if (until < Date.now()) {
      this.approved.delete(server.name);
      return;
    }
    // The entry as it was is still the one loaded (the edit has not been read yet): wait for the change.
    if (this.consent.answer(server) !== undefined) return;
    this.approved.delete(server.name);
    await this.consent.record(server, 'granted');
    this.logs.main.info(`Consent for "${server.name}": granted, as the entry the user changed from the menu`);
  }

  private blockFor(server: ServerDefinition): ServerBlock | undefined {
    if (!isWorkspaceDefined(server.source)) return undefined;
    if (!vscode.workspace.isTrusted) return { reason: 'untrusted', detail: 'workspace not trusted' };
    if (server.transport !== 'stdio' || !server.enabled) return undefined;
    switch (this.consent.answer(server)) {
      case 'granted':
      case 'sandboxed':
        return undefined;
      case 'denied':
        return { reason: 'consentDenied', detail: 'denied by you (Allow… asks again)' };
      case 'dismissed':
        return { reason: 'consentDenied', detail: 'waiting for your consent (Allow… asks again)' };
      case undefined:
        return { reason: 'consentPending', detail: 'waiting for your consent' };
    }
  }

  /** A consented workspace stdio server as it runs: *Run Sandboxed* puts it in the workspace's sandbox. */
  private asConsented(server: ConfiguredServer): ConfiguredServer {
    if (isInvalidServer(server) || server.transport !== 'stdio' || !isWorkspaceDefined(server.source)) return server;
    const answer = this.consent.answer(server);
    if (answer !== 'granted' && answer !== 'sandboxed') return server;
    return withConsentedSandbox(server, answer, workspaceSandboxMode());
  }

  /**
   * Several servers waiting at once get one dialog that lists them all (with *Choose Each…* for
   * one dialog per server, in configuration order); one server gets its own. One modal at a time.
   */
  private async askForConsent(definitions: readonly StdioServerDefinition[]): Promise<void> {
    const pending = definitions.filter((definition) => !this.asking.has(definition.name));
    if (pending.length === 0) return;
    for (const definition of pending) this.asking.add(definition.name);
    try {
      const mode = workspaceSandboxMode();
      this.logs.main.info(
        `asking to start ${pending.length === 1 ? 'a workspace server' : `${pending.length} workspace servers`} (${performance.now().toFixed(0)} ms after the extension host started)`,
      );
      const batch = pending.length > 1 ? await this.promptAll(pending, mode) : 'each';
      let reload = false;
      if (batch === 'each') {
        for (const definition of pending) {
          const answer = await this.prompt(definition, mode);
          reload = (await this.applyAnswer(definition, answer, mode)) || reload;
        }
      } else {
        // One answer for them all: recorded, then every server it lets run starts at once (one
        // after another, each waited for, took 7 s for 20 servers).
        const blocks = new Map<string, ServerBlock | undefined>();
        for (const definition of pending) {
          const unblock = await this.recordAnswer(definition, batch, mode);
          if (unblock) blocks.set(definition.name, this.blockFor(definition));
          else reload = true;
        }
        await this.manager.setBlocks(blocks);
      }
      if (reload) void this.reload();
    } finally {
      for (const definition of pending) this.asking.delete(definition.name);
    }
  }

  /** Records an answer and unblocks or keeps blocked; true when the server must be loaded again. */
  private async applyAnswer(
    definition: StdioServerDefinition,
    answer: ConsentAnswer | 'dismissed',
    mode: WorkspaceSandboxMode,
  ): Promise<boolean> {
    if (!(await this.recordAnswer(definition, answer, mode))) return true;
    await this.manager.setBlocked(definition.name, this.blockFor(definition));
    return false;
  }

  /** Records an answer; false when the server must be loaded again rather than unblocked. */
  private async recordAnswer(
    definition: StdioServerDefinition,
    answer: ConsentAnswer | 'dismissed',
    mode: WorkspaceSandboxMode,
  ): Promise<boolean> {
    await this.consent.record(definition, answer);
    this.logs.main.info(`Consent for "${definition.name}": ${answer}`);
    // A sandboxed run is another definition (the restart hash covers the sandbox): load again.
    return !(answer === 'sandboxed' || (answer === 'granted' && mode === 'sandboxed'));
  }

  /**
   * Before an explicit start or reconnect: ask again if the user only dismissed the prompt, or, for
   * one server the user acts on (`reaskDenied`), even if it was denied: Start on a denied row must
   * not do nothing.
   */
  async confirmAgain(name: string, options: { reaskDenied?: boolean } = {}): Promise<void> {
    // The definition as loaded: the one the consent was given for, not the sandboxed one that runs.
    const definition = this.latest.servers.find((server) => server.name === name && !isInvalidServer(server)) as
      ServerDefinition | undefined;
    if (!definition || definition.transport !== 'stdio' || !isWorkspaceDefined(definition.source) || !vscode.workspace.isTrusted) return;
    const answer = this.consent.answer(definition);
    if (answer === 'granted' || answer === 'sandboxed') return;
    if (answer === 'dismissed') this.consent.forgetDismissal(definition);
    if (answer === 'denied') {
      if (!options.reaskDenied) return;
      await this.consent.forget(definition);
    }
    await this.askForConsent([definition]);
  }

  dispose(): void {
    clearTimeout(this.debounce);
    this.loadedEmitter.dispose();
  }
}
