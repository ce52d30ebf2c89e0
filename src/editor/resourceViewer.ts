// Opens a server's resource in the editor: text read-only (a document of our own scheme, whose
// content is what the server returned), binary content as a file in the extension's storage, so
// that images open in the editor's image preview.
import * as vscode from 'vscode';
import type { OfferCatalog } from '../core/catalog';

export const RESOURCE_SCHEME = 'mcp-switchboard-resource';

/** Documents are kept for as long as the editor shows them; this bounds what stays in memory. */
const MAX_KEPT = 50;

const LANGUAGES: Record<string, string> = {
  'text/markdown': 'markdown',
  'application/json': 'json',
  'text/html': 'html',
  'text/css': 'css',
  'text/javascript': 'javascript',
  'application/javascript': 'javascript',
  'text/x-python': 'python',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/yaml': 'yaml',
  'text/yaml': 'yaml',
};

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
};

type Contents = { uri: string; mimeType?: string; text?: string; blob?: string };

export class ResourceViewer implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly offers: OfferCatalog,
    private readonly storage: vscode.Uri,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RESOURCE_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '(this resource is no longer loaded; open it again from the Servers view)';
  }

  async open(server: string, uri: string): Promise<vscode.Uri> {
    const result = await this.offers.forwardRequest(server, 'resources/read', { uri });
    const first = result.contents[0] as Contents | undefined;
    if (!first) throw new Error(`server "${server}" returned no content for ${uri}`);
    if (typeof first.blob === 'string') return this.openBinary(server, uri, first);
    const document = vscode.Uri.from({
      scheme: RESOURCE_SCHEME,
      path: `/${server}/${uri.replace(/^[a-z][a-z0-9+.-]*:\/*/i, '')}`,
      query: new URLSearchParams({ uri }).toString(),
    });
    this.keep(document.toString(), result.contents.map((part) => (part as Contents).text ?? '').join('\n'));
    const opened = await vscode.workspace.openTextDocument(document);
    const language = first.mimeType ? LANGUAGES[first.mimeType] : undefined;
    await vscode.window.showTextDocument(language ? await vscode.languages.setTextDocumentLanguage(opened, language) : opened, {
      preview: true,
    });
    return document;
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }

  private keep(key: string, text: string): void {
    this.texts.delete(key);
    this.texts.set(key, text);
    while (this.texts.size > MAX_KEPT) this.texts.delete(this.texts.keys().next().value as string);
  }

  private async openBinary(server: string, uri: string, contents: Contents): Promise<vscode.Uri> {
    const base = (uri.split(/[/:]/).filter(Boolean).pop() ?? 'resource').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
    const extension = contents.mimeType ? EXTENSIONS[contents.mimeType] : undefined;
    const name = extension && !base.endsWith(`.${extension}`) ? `${base}.${extension}` : base;
    const file = vscode.Uri.joinPath(this.storage, 'resources', server.replace(/[^A-Za-z0-9._-]/g, '_'), name);
    await vscode.workspace.fs.writeFile(file, Buffer.from(contents.blob ?? '', 'base64'));
    await vscode.commands.executeCommand('vscode.open', file, { preview: true });
    return file;
  }
}
