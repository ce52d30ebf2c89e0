// Entries that are Switchboard itself. Share writes one into other agents' files (and into the
// folder's .mcp.json, which this same folder reads): a `serve --stdio` launcher of Switchboard, or
// an HTTP entry for a `serve` on this machine that sends the gateway's token variable. Read back by
// Switchboard, such an entry would start Switchboard inside itself, or connect its gateway to
// itself, and list every tool twice. It is recognized before anything runs and skipped, with one
// diagnostic that says why; other agents read the same entry as it was meant. (A URL of its own
// gateway written by hand is refused by the gateway at the first request: base/selfLoop.ts.)
import type { ServerCandidate } from './buildContext';
import { describeSource } from './precedence';
import type { ConfigDiagnostic } from './types';

/** The variable the gateway's token is given to other agents in (share/gatewayToken.ts). */
export const GATEWAY_TOKEN_ENV = 'MCP_SWITCHBOARD_TOKEN';

const CLI_NAME = 'mcp-switchboard';
/** The package as npx, `npm exec`, `pnpm dlx`, `bunx`... name it: `mcp-switchboard`, `mcp-switchboard@1.2.3`. */
const PACKAGE_SPEC = /^mcp-switchboard(@[^\s/]*)?$/i;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The last part of a path, either separator, without a Windows launcher's extension. */
function commandName(word: string): string {
  const base = word.split(/[\\/]/).pop() ?? word;
  return base.replace(/\.(cmd|exe|ps1|bat)$/i, '').toLowerCase();
}

/**
 * A script inside an installation of Switchboard: the npm package's folder (`…/node_modules/
 * mcp-switchboard/dist/cli.js`) or the editor extension's (`…/publisher.mcp-switchboard-1.2.3/dist/extension.js`).
 */
function insideInstallation(word: string): boolean {
  const parts = word.split(/[\\/]/);
  return parts.length > 1 && parts.slice(0, -1).some((part) => /^([\w-]+\.)?mcp-switchboard(-\d[\w.+-]*)?$/i.test(part));
}

/** Whether the words after Switchboard's CLI run `serve --stdio`. */
function runsServeStdio(rest: readonly string[]): boolean {
  const command = rest.find((word) => !word.startsWith('-'));
  return command === 'serve' && rest.includes('--stdio');
}

/**
 * Why an entry is Switchboard itself, or undefined. `launchers`: the scripts this installation's
 * CLI is started by (the editor's `cli.js`, the running CLI's own file), as absolute paths.
 */
export function switchboardItself(raw: unknown, launchers: readonly string[] = []): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const entry = raw as Record<string, unknown>;
  if (typeof entry.command === 'string') {
    const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === 'string') : [])];
    const cli = words.findIndex(
      (word) => commandName(word) === CLI_NAME || PACKAGE_SPEC.test(word) || launchers.includes(word) || insideInstallation(word),
    );
    if (cli >= 0 && runsServeStdio(words.slice(cli + 1)))
      return 'it starts MCP Switchboard itself (serve --stdio), an entry Share writes for other agents';
    return undefined;
  }
  if (typeof entry.url !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(entry.url);
  } catch {
    return undefined;
  }
  const headers = typeof entry.headers === 'object' && entry.headers !== null ? Object.values(entry.headers) : [];
  if (LOOPBACK_HOSTS.has(url.hostname) && headers.some((value) => typeof value === 'string' && value.includes(GATEWAY_TOKEN_ENV)))
    return `it is a Switchboard gateway on this machine (it sends ${GATEWAY_TOKEN_ENV}), an entry Share writes for other agents`;
  return undefined;
}

/** The candidates that are not Switchboard itself, and one warning for each one that is. */
export function withoutSwitchboardItself(
  candidates: readonly ServerCandidate[],
  launchers: readonly string[] = [],
): { candidates: ServerCandidate[]; diagnostics: ConfigDiagnostic[] } {
  const kept: ServerCandidate[] = [];
  const diagnostics: ConfigDiagnostic[] = [];
  for (const candidate of candidates) {
    const why = candidate.source.kind === 'team' ? undefined : switchboardItself(candidate.raw, launchers);
    if (why === undefined) {
      kept.push(candidate);
      continue;
    }
    diagnostics.push({
      severity: 'warning',
      server: candidate.name,
      path: candidate.path,
      message: `server "${candidate.name}" from ${describeSource(candidate.source)} is skipped: ${why}; Switchboard does not serve itself`,
      source: candidate.source,
    });
  }
  return { candidates: kept, diagnostics };
}
