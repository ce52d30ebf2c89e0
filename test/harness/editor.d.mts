import type { BrowserContext } from 'playwright-core';

export const EXTENSION_ID: string;
export function freePort(): Promise<number>;
export function copyWorkspace(name: string, root?: string): string;
export function endMachineHost(hostDir: string): Promise<void>;

export interface WorkbenchUrlOptions {
  folder?: string;
  developmentPath?: string;
  testsPath?: string;
  environment?: Record<string, string>;
}

export interface CodeServer {
  readonly url: string;
  readonly port: number;
  readonly userDataDir: string;
  /** The run's temp folder; the editor's XDG_CONFIG_HOME is its `config`. */
  readonly stateDir: string;
  readonly extensionsDir: string;
  /** The machine host's folder of this run (MCP_SWITCHBOARD_HOST_DIR): its windows share servers with each other only. */
  readonly hostDir: string;
  readonly output: string[];
  workbenchUrl(options?: WorkbenchUrlOptions): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  workspace?: string;
  extensionsDir?: string;
  /** Extension folders installed by copying them into the extensions folder before the start. */
  extraExtensions?: string[];
  trust?: boolean;
  userSettings?: Record<string, unknown>;
  host?: string;
  port?: number;
  log?: (line: string) => void;
  env?: Record<string, string>;
  /** Default true (tests need it); false shows toasts, for the extension installed rather than loaded for development. */
  smokeTestDriver?: boolean;
}

export function startCodeServer(options?: StartOptions): Promise<CodeServer>;
export function installVsix(vsixPath: string, extensionsDir: string): Promise<void>;
export function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }>;
