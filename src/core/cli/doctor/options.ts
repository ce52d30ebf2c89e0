// Turns the doctor's command-line values into checked options. Kept apart from the CLI so that every
// rule about flag values lives with the doctor, and the CLI is only argv plumbing.
import path from 'node:path';
import { parseCallRequest, type CallRequest, type Parsed } from './callTarget';

export interface DoctorFlags {
  readonly folder?: string;
  readonly json?: boolean;
  readonly timeout?: string;
  readonly call?: string;
  readonly args?: string;
  readonly 'trust-workspace'?: boolean;
}

export interface DoctorOptions {
  /** Absolute. */
  readonly folder: string;
  readonly json: boolean;
  /** Undefined: derived from the servers' connect timeouts (see defaultTimeoutMs). */
  readonly timeoutMs?: number;
  readonly call?: CallRequest;
  /** Run the folder's own servers without asking (and without remembering). */
  readonly trustWorkspace: boolean;
}

/** Node timers overflow (and fire at once) past this. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function parseDoctorOptions(flags: DoctorFlags, cwd = process.cwd()): Parsed<DoctorOptions> {
  let timeoutMs: number | undefined;
  if (flags.timeout !== undefined) {
    timeoutMs = Number(flags.timeout);
    if (!/^\d+$/.test(flags.timeout.trim()) || !Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
      return { ok: false, message: `--timeout expects a positive number of milliseconds, got "${flags.timeout}"` };
    }
  }
  if (flags.args !== undefined && flags.call === undefined) {
    return { ok: false, message: '--args is only used with --call SERVER/TOOL' };
  }
  let call: CallRequest | undefined;
  if (flags.call !== undefined) {
    const parsed = parseCallRequest(flags.call, flags.args);
    if (!parsed.ok) return parsed;
    call = parsed.value;
  }
  if (flags.folder === '') return { ok: false, message: '--folder expects a directory' };
  return {
    ok: true,
    value: {
      folder: path.resolve(cwd, flags.folder ?? '.'),
      json: flags.json ?? false,
      trustWorkspace: flags['trust-workspace'] ?? false,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(call === undefined ? {} : { call }),
    },
  };
}
