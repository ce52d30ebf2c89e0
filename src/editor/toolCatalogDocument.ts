import * as vscode from 'vscode';
import type { CatalogSnapshot } from '../core/catalog';
import { catalogReport } from '../core/presentation';

export const CATALOG_SCHEME = 'mcp-switchboard';
export const CATALOG_URI = vscode.Uri.from({ scheme: CATALOG_SCHEME, path: '/Tool Catalog.md' });

/**
 * The tool catalog as a read-only virtual document, shown as a rendered markdown preview: an
 * untitled document would ask to be saved when closed, and its wide tables wrap in a text editor.
 */
export class ToolCatalogDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(private readonly snapshot: () => CatalogSnapshot) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(CATALOG_SCHEME, this);
  }

  provideTextDocumentContent(): string {
    return catalogReport(this.snapshot());
  }

  /** Re-renders an open catalog (after a filter or a tool list changed). */
  refresh(): void {
    this.changed.fire(CATALOG_URI);
  }

  /** Opens the preview (or the read-only text where no markdown preview exists). Returns the document's URI. */
  async show(): Promise<vscode.Uri> {
    this.refresh();
    try {
      // Contributed by the built-in markdown extension, which activates on this command; not
      // listed by getCommands() before that, so it is simply tried.
      await vscode.commands.executeCommand('markdown.showPreview', CATALOG_URI);
    } catch {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(CATALOG_URI), { preview: true });
    }
    return CATALOG_URI;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
