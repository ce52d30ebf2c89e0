import * as vscode from 'vscode';

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

/** Resolves when `condition` holds after a configuration change, or rejects after `timeoutMs`. */
export async function waitFor<T>(probe: () => T | undefined, event: vscode.Event<unknown>, timeoutMs = 10_000): Promise<T> {
  const now = probe();
  if (now !== undefined) return now;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`condition not met within ${timeoutMs} ms`));
    }, timeoutMs);
    const subscription = event(() => {
      const value = probe();
      if (value === undefined) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve(value);
    });
  });
}
