import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { StdioServerDefinition } from '../core/config';

const STORE_KEY = 'mcpSwitchboard.consent';
const SAMPLING_KEY = 'mcpSwitchboard.samplingConsent';

export type ConsentAnswer = 'granted' | 'denied';

/** What a user agrees to: this command, these args, these env names, in this folder. */
export function consentHash(definition: StdioServerDefinition): string {
  const identity = {
    command: definition.command,
    args: definition.args,
    envKeys: Object.keys(definition.env).sort(),
    cwd: definition.cwd ?? '',
  };
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

export function commandLine(definition: StdioServerDefinition): string {
  const quote = (part: string) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part));
  return [definition.command, ...definition.args].map(quote).join(' ');
}

/**
 * Remembers, per hash, whether the user allowed a workspace-defined stdio server to run. A changed
 * command, argument, env name or folder is a new hash, so it asks again.
 */
export class ConsentStore {
  /** Dismissed prompts: not remembered across sessions, but not asked again until the user acts. */
  private readonly dismissed = new Set<string>();

  constructor(private readonly memento: vscode.Memento) {}

  answer(definition: StdioServerDefinition): ConsentAnswer | 'dismissed' | undefined {
    const hash = consentHash(definition);
    const stored = this.memento.get<Record<string, ConsentAnswer>>(STORE_KEY, {})[hash];
    return stored ?? (this.dismissed.has(hash) ? 'dismissed' : undefined);
  }

  async record(definition: StdioServerDefinition, answer: ConsentAnswer | 'dismissed'): Promise<void> {
    const hash = consentHash(definition);
    if (answer === 'dismissed') {
      this.dismissed.add(hash);
      return;
    }
    const all = { ...this.memento.get<Record<string, ConsentAnswer>>(STORE_KEY, {}), [hash]: answer };
    await this.memento.update(STORE_KEY, all);
  }

  /** Forgets a dismissal so that an explicit start or reconnect asks again. */
  forgetDismissal(definition: StdioServerDefinition): void {
    this.dismissed.delete(consentHash(definition));
  }

  /** Whether the user chose "Always Allow" for this server's sampling requests. */
  samplingAnswer(server: string): ConsentAnswer | undefined {
    return this.memento.get<Record<string, ConsentAnswer>>(SAMPLING_KEY, {})[server];
  }

  async recordSampling(server: string, answer: ConsentAnswer): Promise<void> {
    await this.memento.update(SAMPLING_KEY, { ...this.memento.get<Record<string, ConsentAnswer>>(SAMPLING_KEY, {}), [server]: answer });
  }

  /** Forgets every answer: servers to start, and servers allowed to use a model. */
  async reset(): Promise<void> {
    this.dismissed.clear();
    await this.memento.update(STORE_KEY, undefined);
    await this.memento.update(SAMPLING_KEY, undefined);
  }
}

/** The modal: the exact command line and working folder, Allow or Deny. */
export async function askConsent(definition: StdioServerDefinition): Promise<ConsentAnswer | 'dismissed'> {
  const allow = 'Allow';
  const deny = 'Deny';
  const choice = await vscode.window.showWarningMessage(
    `Allow the workspace to start the MCP server "${definition.name}"?`,
    {
      modal: true,
      detail: `This workspace's settings ask MCP Switchboard to run:\n\n${commandLine(definition)}\n\nin ${definition.cwd ?? '(the default folder)'}\n\nOnly allow commands you trust. The answer is remembered until the command changes.`,
    },
    allow,
    deny,
  );
  if (choice === allow) return 'granted';
  if (choice === deny) return 'denied';
  return 'dismissed';
}
