// What a user agrees to when a workspace-defined stdio server may run: this command, these
// arguments, these environment names, in this folder, with this sandbox. An entry that changes any
// of them (or loosens or drops its own sandbox) is a new key, and is asked about again.
import { createHash } from 'node:crypto';
import { sandboxOf, type StdioServerDefinition } from '../config';

/** `sandboxed`: *Run Sandboxed*, with the workspace folder and temp writable and the entry's domains. */
export type ConsentAnswer = 'granted' | 'sandboxed' | 'denied';

export function consentHash(definition: StdioServerDefinition): string {
  const sandbox = sandboxOf(definition);
  const identity = {
    command: definition.command,
    args: definition.args,
    envKeys: Object.keys(definition.env).sort(),
    cwd: definition.cwd ?? '',
    ...(sandbox ? { sandbox: sandbox.rules } : {}),
  };
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

export function isConsentAnswer(value: unknown): value is ConsentAnswer {
  return value === 'granted' || value === 'sandboxed' || value === 'denied';
}
