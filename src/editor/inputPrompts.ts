import * as vscode from 'vscode';
import type { InputRequest, InputResolver } from '../core/config';

const KEY_PREFIX = 'mcpSwitchboard.input.';
const INDEX_KEY = 'mcpSwitchboard.inputIds';

/**
 * `${input:id}` values: asked for once, kept in SecretStorage (the OS keychain), never written to
 * settings. Disabled servers are not prompted for; they stay blocked until enabled.
 */
export class SecretInputResolver implements InputResolver {
  /** Prompts already shown during one load, so one id is asked for once even if many servers use it. */
  private readonly pending = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
  ) {}

  async resolve(request: InputRequest): Promise<string | undefined> {
    const stored = await this.secrets.get(KEY_PREFIX + request.id);
    if (stored !== undefined) return stored;
    if (!request.enabled) return undefined;
    let prompt = this.pending.get(request.id);
    if (!prompt) {
      prompt = this.ask(request).finally(() => this.pending.delete(request.id));
      this.pending.set(request.id, prompt);
    }
    return prompt;
  }

  private async ask(request: InputRequest): Promise<string | undefined> {
    const value = await vscode.window.showInputBox({
      title: `MCP Switchboard: ${request.server} needs "${request.id}"`,
      prompt: request.description ?? `Value for \${input:${request.id}} (stored in your OS keychain, never in settings)`,
      // Settings entries have no `inputs` block to say so; an id that names a secret is masked.
      password: request.password ?? /token|key|secret|password|auth/i.test(request.id),
      value: request.default,
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    await this.secrets.store(KEY_PREFIX + request.id, value);
    const ids = new Set(this.state.get<string[]>(INDEX_KEY, []));
    ids.add(request.id);
    await this.state.update(INDEX_KEY, [...ids]);
    return value;
  }

  /** Forgets every stored input; the next load asks again. */
  async clear(): Promise<number> {
    const ids = this.state.get<string[]>(INDEX_KEY, []);
    await Promise.all(ids.map((id) => this.secrets.delete(KEY_PREFIX + id)));
    await this.state.update(INDEX_KEY, []);
    return ids.length;
  }
}
