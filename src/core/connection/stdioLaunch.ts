// What a stdio transport actually spawns: the configured command, or for a sandboxed server the
// sandbox runtime around it. A sandbox that was asked for and cannot run fails the start with
// SANDBOX_UNAVAILABLE; the server never runs without it.
import fs from 'node:fs';
import { describeSandboxRules } from '../config/sandboxSetting';
import type { SandboxRules } from '../config/types';
import { checkSandbox, defaultSandboxRuntime, prepareSandboxedCommand, sandboxStderrFilter, type SandboxRuntime } from '../sandbox';
import { errorMessage } from '../base/errorMessage';
import { ConnectionError } from './errors';

export interface StdioSandboxOptions {
  /** The configured server name: the key of its private folder. */
  readonly server: string;
  readonly rules: SandboxRules;
  /** Defaults to the bundled runtime (or the package, in development). */
  readonly runtime?: SandboxRuntime;
  /** Parent of the per-server folders; defaults to the OS temp folder. */
  readonly stateRoot?: string;
  /** Each network access the sandbox refused, as a readable line. */
  readonly onDenial?: (text: string) => void;
}

export interface LaunchRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly searchPath: string;
  readonly onStderrLine?: (line: string) => void;
  readonly sandbox?: StdioSandboxOptions;
}

export interface ResolvedLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onStderrLine?: (line: string) => void;
  /** For the start log line: what the sandbox allows, or nothing. */
  readonly note: string;
}

export async function resolveLaunch(request: LaunchRequest): Promise<ResolvedLaunch> {
  const { sandbox } = request;
  if (!sandbox) return { command: request.command, args: request.args, env: request.env, ...(request.onStderrLine ? { onStderrLine: request.onStderrLine } : {}), note: '' };
  const check = await checkSandbox({ platform: request.platform, searchPath: request.searchPath });
  if (!check.ok) throw new ConnectionError('SANDBOX_UNAVAILABLE', `sandbox unavailable: ${check.reason}. ${check.fix}`);
  const runtime = sandbox.runtime ?? defaultSandboxRuntime();
  if (!runtime || !fs.existsSync(runtime.cliPath)) throw new ConnectionError('SANDBOX_UNAVAILABLE', 'sandbox unavailable: the sandbox runtime is missing from this installation. Reinstall MCP Switchboard, or turn the sandbox off for this server ("sandboxEnabled": false)');
  let prepared;
  try {
    prepared = prepareSandboxedCommand({ server: sandbox.server, command: request.command, args: request.args, env: request.env, rules: sandbox.rules, ...(sandbox.stateRoot ? { stateRoot: sandbox.stateRoot } : {}) }, runtime);
  } catch (error) {
    throw new ConnectionError('SANDBOX_UNAVAILABLE', `sandbox unavailable: cannot prepare its folder: ${errorMessage(error)}`, { cause: error });
  }
  const onLine = request.onStderrLine ?? (() => undefined);
  const onDenial = sandbox.onDenial ?? onLine;
  return { command: prepared.command, args: prepared.args, env: prepared.env, onStderrLine: sandboxStderrFilter(onLine, onDenial), note: `, sandboxed: ${describeSandboxRules(sandbox.rules)}` };
}
