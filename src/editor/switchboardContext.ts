import * as vscode from 'vscode';

/**
 * Owns everything the extension registers, so that deactivation (and the tests) can dispose it in
 * one place, in reverse order of creation.
 */
export class SwitchboardContext implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {}

  own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0).reverse()) {
      try {
        disposable.dispose();
      } catch (error) {
        console.error('[mcp-switchboard] dispose failed', error);
      }
    }
  }
}
