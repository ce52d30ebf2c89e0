import path from 'node:path';
import * as vscode from 'vscode';

/**
 * Watches the source files the last load consulted (present or not: creating `.mcp.json` adds its
 * servers), and asks for a reload when one changes. Files outside the workspace (~/.codex,
 * ~/.claude.json) are watched too; the editor watches a single file without recursion.
 */
export class SourceFileWatchers implements vscode.Disposable {
  private readonly watchers = new Map<string, vscode.Disposable>();

  constructor(private readonly changed: (file: string) => void) {}

  /** Watches exactly these files from now on. */
  watch(files: readonly string[]): void {
    const wanted = new Set(files);
    for (const [file, watcher] of this.watchers) {
      if (wanted.has(file)) continue;
      watcher.dispose();
      this.watchers.delete(file);
    }
    for (const file of wanted) {
      if (this.watchers.has(file)) continue;
      this.watchers.set(file, this.watchOne(file));
    }
  }

  private watchOne(file: string): vscode.Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)),
    );
    const notify = () => this.changed(file);
    return vscode.Disposable.from(watcher, watcher.onDidChange(notify), watcher.onDidCreate(notify), watcher.onDidDelete(notify));
  }

  dispose(): void {
    for (const watcher of this.watchers.values()) watcher.dispose();
    this.watchers.clear();
  }
}
