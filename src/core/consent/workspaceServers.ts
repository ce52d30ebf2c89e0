// The CLI's answer to "may this repository's servers run?": what the editor asks in a dialog,
// `doctor` and `serve` ask on the terminal, once per entry, and remember in the consent file the
// editor shares. Without a terminal nobody can answer, so a workspace-defined stdio server that
// has no answer stays blocked, saying how to give one, unless `--trust-workspace` says yes for all.
import path from 'node:path';
import {
  describeSource,
  isInvalidServer,
  isWorkspaceDefinedSource,
  readableCommandLine,
  readablePath,
  workspaceConsentSandbox,
  type InvalidServer,
  type ServerDefinition,
  type StdioServerDefinition,
} from '../config';
import { displayText } from '../base/displayText';
import type { BlockedReason } from '../state';
import { ConsentFile, defaultConsentFile } from './consentFile';

/** A yes-or-no question to the user (the CLI's terminal); resolves false for anything but yes. */
export type Confirm = (question: string) => Promise<boolean>;

export interface WorkspaceConsentOptions {
  /** The open folders: an entry from a file inside one of them is the repository's. */
  readonly folders: readonly string[];
  /** Defaults to the file the editor shares (defaultConsentFile, located by `env`). */
  readonly store?: ConsentFile;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--trust-workspace`: run them all this time, remembering nothing. */
  readonly trustWorkspace: boolean;
  /** Asks on the terminal; absent when there is none. */
  readonly ask?: Confirm;
  readonly app: 'doctor' | 'serve';
}

export interface ConsentedServers {
  /** The servers as they run: a server allowed *sandboxed* in the editor runs in the workspace's sandbox here too. */
  readonly servers: ReadonlyArray<ServerDefinition | InvalidServer>;
  /** The ones held back, by name. */
  readonly blocks: ReadonlyMap<string, { readonly reason: BlockedReason; readonly detail: string }>;
  /** Every entry whose file belongs to the repository, whatever its answer. */
  readonly workspaceDefined: ReadonlySet<string>;
}

/** One question at a time, in configuration order. */
export async function settleWorkspaceConsent(
  servers: ReadonlyArray<ServerDefinition | InvalidServer>,
  options: WorkspaceConsentOptions,
): Promise<ConsentedServers> {
  const blocks = new Map<string, { reason: BlockedReason; detail: string }>();
  const workspaceDefined = new Set<string>();
  const out: Array<ServerDefinition | InvalidServer> = [];
  const store = options.store ?? new ConsentFile(defaultConsentFile(options.env ?? process.env));
  for (const server of servers) {
    if (!isWorkspaceDefinedSource(server.source, options.folders, path)) {
      out.push(server);
      continue;
    }
    workspaceDefined.add(server.name);
    if (isInvalidServer(server) || server.transport !== 'stdio' || !server.enabled || options.trustWorkspace) {
      out.push(server);
      continue;
    }
    let answer = store.answer(server);
    if (answer === undefined && options.ask) {
      answer = (await options.ask(question(server))) ? 'granted' : 'denied';
      store.record(server, answer);
    }
    switch (answer) {
      case 'granted':
        out.push(server);
        break;
      case 'sandboxed':
        out.push({ ...server, sandbox: workspaceConsentSandbox(server.sandbox?.rules, server.cwd) });
        break;
      case 'denied':
        out.push(server);
        blocks.set(server.name, {
          reason: 'consentDenied',
          detail: `denied by you; to allow it, run \`mcp-switchboard ${options.app}\` with --trust-workspace, or Allow… in the editor`,
        });
        break;
      case undefined:
        out.push(server);
        blocks.set(server.name, {
          reason: 'consentPending',
          detail: `defined by the workspace (${displayText(describeSource(server.source))}) and not allowed yet: run \`mcp-switchboard ${options.app}\` on a terminal to be asked, or pass --trust-workspace`,
        });
        break;
    }
  }
  return { servers: out, blocks, workspaceDefined };
}

function question(server: StdioServerDefinition): string {
  const line = readableCommandLine(server);
  const env = Object.keys(server.env);
  return [
    `"${displayText(server.name)}" is defined by ${displayText(describeSource(server.source))}, a file of this workspace. It runs:`,
    `  ${displayText(line, 2_000)}`,
    ...(env.length > 0 ? [`  with the variables ${displayText(env.join(', '))}`] : []),
    `  in ${displayText(server.cwd === undefined ? '(the current folder)' : readablePath(server.cwd))}`,
    'Run it? (remembered for this command line; Switchboard in the editor shares the answer)',
  ].join('\n');
}
