// The user's answers about workspace-defined servers, kept where both the editor and the CLI find
// them: `$XDG_CONFIG_HOME/mcp-switchboard/consent.json` (`%APPDATA%` on Windows). A server allowed in
// the editor runs under `doctor` and `serve` in the same folder without asking again, and the
// other way round. Every sandbox keeps this file read-only (config/sourceLocations.ts), so a
// sandboxed server cannot approve itself.
//
// The file is another program's to damage: it is read bounded (size, entries), a broken or
// foreign one reads as empty (nothing is allowed by accident), and it is replaced atomically (0600).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { consentHash, isConsentAnswer, type ConsentAnswer } from './consentKey';
import { readRegularFileSync, writePrivateFileSync } from '../base/regularFile';
import { userConfigFolder, type StdioServerDefinition } from '../config';

const MAX_BYTES = 4 * 1024 * 1024;
/** The oldest answers go first past this many. */
export const MAX_ANSWERS = 10_000;

export function defaultConsentFile(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = os.homedir(),
  platform: NodeJS.Platform = process.platform,
): string {
  return path.join(userConfigFolder(env, platform, home), 'consent.json');
}

interface Stored {
  readonly answer: ConsentAnswer;
  /** Which server and folder it was, for a person reading the file. */
  readonly server: string;
  readonly at: string;
}

export class ConsentFile {
  constructor(readonly file: string = defaultConsentFile()) {}

  answer(definition: StdioServerDefinition): ConsentAnswer | undefined {
    return this.read().get(consentHash(definition))?.answer;
  }

  record(definition: StdioServerDefinition, answer: ConsentAnswer): void {
    const all = this.read();
    const key = consentHash(definition);
    all.delete(key);
    all.set(key, { answer, server: `${definition.name} in ${definition.cwd ?? '(no folder)'}`, at: new Date().toISOString() });
    while (all.size > MAX_ANSWERS) all.delete(all.keys().next().value as string);
    this.write(all);
  }

  forget(definition: StdioServerDefinition): void {
    const all = this.read();
    if (all.delete(consentHash(definition))) this.write(all);
  }

  reset(): void {
    fs.rmSync(this.file, { force: true });
  }

  private read(): Map<string, Stored> {
    const answers = new Map<string, Stored>();
    let text: string | undefined;
    try {
      text = readRegularFileSync(this.file, MAX_BYTES);
    } catch {
      return answers;
    }
    if (text === undefined) return answers;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return answers;
    }
    const entries =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as { answers?: unknown }).answers : undefined;
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return answers;
    for (const [key, value] of Object.entries(entries).slice(-MAX_ANSWERS)) {
      if (!/^[0-9a-f]{64}$/.test(key) || typeof value !== 'object' || value === null) continue;
      const { answer, server, at } = value as Record<string, unknown>;
      if (isConsentAnswer(answer))
        answers.set(key, { answer, server: typeof server === 'string' ? server : '', at: typeof at === 'string' ? at : '' });
    }
    return answers;
  }

  private write(answers: ReadonlyMap<string, Stored>): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    writePrivateFileSync(this.file, `${JSON.stringify({ answers: Object.fromEntries(answers) }, null, 1)}\n`);
  }
}
