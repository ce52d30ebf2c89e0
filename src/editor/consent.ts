import * as vscode from 'vscode';
import { workspaceConsentSandbox, type StdioServerDefinition } from '../core/config';
import { consentHash, ConsentFile, type ConsentAnswer } from '../core/consent';
import type { WorkspaceSandboxMode } from './settings';

export { consentHash, type ConsentAnswer } from '../core/consent';

const STORE_KEY = 'mcpSwitchboard.consent';
const SAMPLING_KEY = 'mcpSwitchboard.samplingConsent';

/**
 * Remembers, per hash, whether the user allowed a workspace-defined stdio server to run. A changed
 * command, argument, env name or folder is a new hash, so it asks again. The answers are owned by
 * the consent file that `doctor` and `serve` read and write too (core/consent): a server allowed
 * here runs from a terminal without asking again, and one answered there is not asked here. The
 * editor's own storage holds only answers from before that file, and answers the file could not
 * take (an unwritable folder), so that an answer is never lost.
 */
export class ConsentStore {
  /** Dismissed prompts: not remembered across sessions, but not asked again until the user acts. */
  private readonly dismissed = new Set<string>();

  constructor(
    private readonly memento: vscode.Memento,
    private readonly shared: ConsentFile = new ConsentFile(),
  ) {}

  answer(definition: StdioServerDefinition): ConsentAnswer | 'dismissed' | undefined {
    const hash = consentHash(definition);
    const stored = this.shared.answer(definition) ?? this.memento.get<Record<string, ConsentAnswer>>(STORE_KEY, {})[hash];
    return stored ?? (this.dismissed.has(hash) ? 'dismissed' : undefined);
  }

  async record(definition: StdioServerDefinition, answer: ConsentAnswer | 'dismissed'): Promise<void> {
    const hash = consentHash(definition);
    if (answer === 'dismissed') {
      this.dismissed.add(hash);
      return;
    }
    // An older answer of the editor's own must not outlive this one.
    await this.dropFromMemento(hash);
    try {
      this.shared.record(definition, answer);
    } catch {
      // The file cannot be written: the editor keeps the answer itself (the terminal will ask).
      await this.memento.update(STORE_KEY, { ...this.memento.get<Record<string, ConsentAnswer>>(STORE_KEY, {}), [hash]: answer });
    }
  }

  private async dropFromMemento(hash: string): Promise<void> {
    const stored = this.memento.get<Record<string, ConsentAnswer>>(STORE_KEY, {});
    if (!(hash in stored)) return;
    await this.memento.update(STORE_KEY, Object.fromEntries(Object.entries(stored).filter(([key]) => key !== hash)));
  }

  /** Forgets a dismissal so that an explicit start or reconnect asks again. */
  forgetDismissal(definition: StdioServerDefinition): void {
    this.dismissed.delete(consentHash(definition));
  }

  /** Forgets this server's answer, whatever it was, so that it is asked again; the others stay. */
  async forget(definition: StdioServerDefinition): Promise<void> {
    const hash = consentHash(definition);
    this.dismissed.delete(hash);
    await this.dropFromMemento(hash);
    try {
      this.shared.forget(definition);
    } catch {
      // Unwritable: an answer there stays, as it would for the terminal.
    }
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
    try {
      this.shared.reset();
    } catch {
      // Nothing more the editor can do about a file it cannot remove.
    }
    await this.memento.update(SAMPLING_KEY, undefined);
  }
}

/**
 * The definition a consented workspace server runs with: *Run Sandboxed* (or the user's setting
 * that every workspace server runs sandboxed) replaces whatever the entry asks to write with its
 * folder and temp.
 */
export function withConsentedSandbox(
  definition: StdioServerDefinition,
  answer: ConsentAnswer,
  mode: WorkspaceSandboxMode,
): StdioServerDefinition {
  if (answer === 'denied' || (answer === 'granted' && mode === 'ask')) return definition;
  return { ...definition, sandbox: workspaceConsentSandbox(definition.sandbox?.rules, definition.cwd) };
}
