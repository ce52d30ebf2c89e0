// Signing in to remote servers from the editor. Tokens live in the editor's SecretStorage (the OS
// keychain). The browser opens with openExternal; the authorization server redirects to this
// extension's URI handler, reached through asExternalUri so that the same redirect works in the
// desktop editor, over Remote, and in code-server or vscode.dev.
import * as vscode from 'vscode';
import { CallbackRouter, type SecretStore, type ServerSignIn, type SignInBrowser } from '../core/auth';
import { systemClock } from '../core/base/clock';
import { describeState } from '../core/presentation';
import type { LogChannels } from './logChannels';

const CALLBACK_PATH = '/oauth/callback';

/** The names of what we keep in SecretStorage, which cannot list its keys in every supported editor. */
const INDEX_KEY = 'mcpSwitchboard.oauthKeys';

export class SecretStorageStore implements SecretStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(key: string): Promise<string | undefined> {
    return this.secrets.get(key);
  }

  set(key: string, value: string): Promise<void> {
    return this.serialized(async () => {
      await this.secrets.store(key, value);
      const keys = await this.keys();
      if (!keys.includes(key)) await this.secrets.store(INDEX_KEY, JSON.stringify([...keys, key]));
    });
  }

  delete(key: string): Promise<void> {
    return this.serialized(async () => {
      await this.secrets.delete(key);
      const keys = await this.keys();
      if (keys.includes(key)) await this.secrets.store(INDEX_KEY, JSON.stringify(keys.filter((item) => item !== key)));
    });
  }

  async keys(): Promise<readonly string[]> {
    try {
      const parsed: unknown = JSON.parse((await this.secrets.get(INDEX_KEY)) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
    } catch {
      return [];
    }
  }

  /** The index is read, changed and written back: one change at a time. */
  private serialized(change: () => Promise<void>): Promise<void> {
    const next = this.queue.then(change);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** The extension's URI handler and the sign-ins waiting on it. */
export class EditorSignInBrowser implements vscode.UriHandler, vscode.Disposable {
  private readonly router = new CallbackRouter(systemClock);

  constructor(
    private readonly extensionId: string,
    private readonly logs: LogChannels,
  ) {}

  handleUri(uri: vscode.Uri): void {
    if (uri.path !== CALLBACK_PATH) {
      this.logs.main.warn(`ignored a URI for an unknown path: ${uri.path}`);
      return;
    }
    // The query carries the authorization code: it is never logged.
    if (!this.router.deliver(new URLSearchParams(uri.query)))
      this.logs.main.warn('a sign-in redirect arrived that no sign-in was waiting for (expired, or already finished); ignored');
  }

  /** A browser for one sign-in: its redirect URI is resolved for wherever this editor runs. */
  async forSignIn(server: string): Promise<SignInBrowser> {
    const callback = vscode.Uri.parse(`${vscode.env.uriScheme}://${this.extensionId}${CALLBACK_PATH}`);
    const external = await vscode.env.asExternalUri(callback);
    const logs = this.logs;
    return {
      redirectUrl: external.toString(true),
      async open(url: URL) {
        logs.server(server).info(`sign-in: opening the authorization page of ${url.origin}`);
        // As a string: a vscode.Uri decodes and re-encodes the query, and an authorization URL
        // whose redirect_uri carries a query of its own (code-server's callback does) comes out
        // mangled. The extension host accepts the string and passes it on verbatim.
        const opened = await vscode.env.openExternal(url.href as unknown as vscode.Uri);
        if (!opened) throw new Error('the browser could not be opened for the sign-in');
      },
      waitForCallback: (state: string) => this.router.waitFor(state),
    };
  }

  dispose(): void {
    this.router.cancelAll('the window is closing');
  }
}

export interface SignInActions {
  signIn(server: string): Promise<void>;
  signOut(server: string): Promise<void>;
  signOutAll(): Promise<void>;
  canSignIn(server: string): boolean;
}

/** What the Sign In / Sign Out commands do, with the progress and the messages around it. */
export function signInActions(
  signIns: ServerSignIn,
  browser: EditorSignInBrowser,
  servers: () => readonly string[],
  logs: LogChannels,
): SignInActions {
  return {
    canSignIn: (server) => signIns.remoteDefinition(server) !== undefined,
    async signIn(server) {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Signing in to "${server}": finish in your browser…` },
        async () => signIns.signIn(server, await browser.forSignIn(server)),
      );
      logs
        .server(server)
        .info(
          `sign-in: ${result.signedIn === 'refreshed' ? 'the saved sign-in was refreshed' : 'signed in'}; the server is ${result.state.kind}`,
        );
      if (result.state.kind === 'running') void vscode.window.showInformationMessage(`MCP Switchboard: signed in to "${server}".`);
      else void vscode.window.showWarningMessage(`MCP Switchboard: signed in to "${server}", but it is ${describeState(result.state)}.`);
    },
    async signOut(server) {
      await signIns.signOut(server);
      logs.server(server).info('signed out: the tokens and the client registration are forgotten');
      void vscode.window.showInformationMessage(`MCP Switchboard: signed out of "${server}".`);
    },
    async signOutAll() {
      const answer = await vscode.window.showWarningMessage(
        'Forget every saved sign-in? Remote servers that need one will ask you to sign in again.',
        { modal: true },
        'Sign Out of All',
      );
      if (answer !== 'Sign Out of All') return;
      const count = await signIns.signOutAll(servers());
      logs.main.info(`signed out of every server (${count} saved sign-in(s) forgotten)`);
      void vscode.window.showInformationMessage(`MCP Switchboard: forgot ${count} saved sign-in(s).`);
    },
  };
}
