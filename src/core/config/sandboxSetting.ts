// Whether a stdio server runs in a sandbox, and with which rules: the editor's `sandboxEnabled` and
// `sandbox` block, the `sandbox` block of the entry's mcp.json, or the user's
// `mcpSwitchboard.sandbox.*` defaults. Paths are resolved here (variables, `~`, relative to the
// server's folder), so that the tooltip, the doctor and the sandbox itself show one set of rules.

import type { BuildContext, ServerCandidate } from './buildContext';
import type { ParsedEntry, ParsedSandboxRules } from './entrySchema';
import type { FieldResolver } from './fieldResolver';
import type { ServerDiagnostics } from './serverDiagnostics';
import { NO_SANDBOX_RULES, type SandboxRules, type SandboxRulesOrigin, type SandboxSetting } from './types';

/**
 * Where package runners download from: a sandboxed `npx` server without these domains cannot fetch
 * its package (its cache is private to the sandbox), so the entry is warned at load.
 */
const RUNNER_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  npx: ['registry.npmjs.org'],
  npm: ['registry.npmjs.org'],
  pnpm: ['registry.npmjs.org'],
  yarn: ['registry.npmjs.org', 'registry.yarnpkg.com'],
  bunx: ['registry.npmjs.org'],
  uvx: ['pypi.org', 'files.pythonhosted.org'],
  uv: ['pypi.org', 'files.pythonhosted.org'],
  pipx: ['pypi.org', 'files.pythonhosted.org'],
  dnx: ['api.nuget.org'],
};

type RuleSegment =
  readonly ['filesystem', 'allowWrite' | 'denyRead' | 'denyWrite'] | readonly ['network', 'allowedDomains' | 'deniedDomains'];
const PATH_RULES = [
  ['filesystem', 'allowWrite'],
  ['filesystem', 'denyRead'],
  ['filesystem', 'denyWrite'],
] as const;

interface SandboxInputs {
  readonly candidate: ServerCandidate;
  readonly entry: ParsedEntry;
  readonly context: BuildContext;
  readonly resolver: FieldResolver;
  readonly diagnostics: ServerDiagnostics;
  /** The server's resolved working folder: writable, as in the editor, and the base of relative paths. */
  readonly cwd: string | undefined;
}

/** Undefined when the server runs unsandboxed and its entry lists no rules. */
export async function buildSandboxSetting(inputs: SandboxInputs): Promise<SandboxSetting | undefined> {
  const { entry, candidate, context } = inputs;
  const own = typeof entry.sandbox === 'object' ? entry.sandbox : undefined;
  const ownSwitch = entry.sandboxEnabled ?? (typeof entry.sandbox === 'boolean' ? entry.sandbox : own ? true : undefined);
  const enabled = ownSwitch ?? context.sandboxDefaults.enabled;
  if (own && ownSwitch === false) inputs.diagnostics.warning(['sandbox'], 'the sandbox rules are not used: "sandboxEnabled" is false');
  const [block, origin] = chooseRules(own, candidate.fileSandbox, context.sandboxDefaults.rules);
  if (!enabled && origin === 'builtIn') return undefined;
  const rules = await resolveRules(block, inputs, origin === 'entry' ? ['sandbox'] : undefined);
  if (enabled) warnAboutRunner(entry.command ?? '', rules, inputs.diagnostics);
  return { enabled, rules, origin };
}

function chooseRules(
  own: ParsedSandboxRules | undefined,
  file: ParsedSandboxRules | undefined,
  user: ParsedSandboxRules | undefined,
): [ParsedSandboxRules, SandboxRulesOrigin] {
  if (own) return [own, 'entry'];
  if (file) return [file, 'file'];
  if (user) return [user, 'userDefault'];
  return [{}, 'builtIn'];
}

/** Expands every rule; `at` is the entry path of the rules, when they are the entry's own. */
async function resolveRules(block: ParsedSandboxRules, inputs: SandboxInputs, at: readonly string[] | undefined): Promise<SandboxRules> {
  const resolved: Record<string, string[]> = {};
  for (const segments of PATH_RULES) {
    const values = block[segments[0]]?.[segments[1]] ?? [];
    resolved[segments[1]] = await resolveEach(
      values,
      segments,
      inputs,
      at,
      (value) => anchorPath(value, inputs),
      RULE_CHECKS[segments[1]]?.(inputs),
    );
  }
  const network = block.network ?? {};
  const allowedDomains = await resolveEach(network.allowedDomains ?? [], ['network', 'allowedDomains'], inputs, at, (value) => value);
  const deniedDomains = await resolveEach(network.deniedDomains ?? [], ['network', 'deniedDomains'], inputs, at, (value) => value);
  // The editor lets a sandboxed server write its own working folder; so do we, unless that folder
  // is the home folder or above it, which would open every agent's configuration and the user's keys.
  const cwd = inputs.cwd !== undefined && opensHome(inputs.cwd, inputs.context) ? undefined : inputs.cwd;
  if (inputs.cwd !== undefined && cwd === undefined) {
    inputs.diagnostics.warning(
      ['cwd'],
      `the sandbox does not let the server write its working folder ${inputs.cwd}: it holds the home folder. Set "cwd" to a project folder, or list the folders it needs in sandbox.filesystem.allowWrite`,
    );
  }
  const allowWrite = unique([...(resolved.allowWrite ?? []), ...(cwd === undefined ? [] : [cwd])]);
  return {
    filesystem: { allowWrite, denyRead: resolved.denyRead ?? [], denyWrite: resolved.denyWrite ?? [] },
    network: { allowedDomains, deniedDomains },
  };
}

/** A rule that is refused (`error`, the rule is not used) or kept with a `warning`; undefined: fine. */
type RuleCheck = (resolved: string) => { readonly error: string } | { readonly warning: string } | undefined;

const RULE_CHECKS: Partial<Record<RuleSegment[1], (inputs: SandboxInputs) => RuleCheck>> = {
  allowWrite: (inputs) => (resolved) =>
    opensHome(resolved, inputs.context)
      ? {
          error: `"${resolved}" would let the server write the whole ${resolved === inputs.context.userHome ? 'home folder' : 'disk'} (shell startup files, ~/.ssh, every agent's configuration): the server is not started. List the folders it needs instead, such as "~/data"`,
        }
      : undefined,
  denyRead: () => (resolved) =>
    /[*?[]/.test(resolved)
      ? {
          warning: `"${resolved}" is a pattern: on Linux it covers only the files that exist when the server starts, so a file made later is readable. Deny the folder that holds such files instead`,
        }
      : undefined,
};

/** The root, the home folder, or a folder above the home folder. */
function opensHome(resolved: string, context: BuildContext): boolean {
  const { paths, userHome } = context;
  const folder = paths.resolve(resolved);
  if (paths.parse(folder).root === folder) return true;
  const relative = paths.relative(folder, userHome);
  return relative === '' || (!relative.startsWith('..') && !paths.isAbsolute(relative));
}

async function resolveEach(
  values: readonly string[],
  segments: RuleSegment,
  inputs: SandboxInputs,
  at: readonly string[] | undefined,
  finish: (value: string) => string | undefined,
  check?: RuleCheck,
): Promise<string[]> {
  const out: string[] = [];
  for (const [index, value] of values.entries()) {
    // Rules from elsewhere (the file's block, the user's setting) are reported at the entry's `sandbox`.
    const path = at ? [...at, ...segments, index] : ['sandbox'];
    const expanded = await inputs.resolver.string(value, path);
    if (expanded === undefined || expanded.trim() === '') continue;
    const done = finish(expanded);
    if (done === undefined) {
      inputs.diagnostics.error(path, `"${expanded}" is a relative path, but the server has no working folder to resolve it against`);
      continue;
    }
    const verdict = check?.(done);
    if (verdict && 'error' in verdict) {
      inputs.diagnostics.error(path, verdict.error);
      continue;
    }
    if (verdict) inputs.diagnostics.warning(path, verdict.warning);
    out.push(done);
  }
  return unique(out);
}

/** `~` is the user's home; a relative path is relative to the server's folder, as the sandbox sees it. */
function anchorPath(value: string, inputs: SandboxInputs): string | undefined {
  const { paths, userHome } = inputs.context;
  if (value === '~') return userHome;
  if (value.startsWith('~/') || value.startsWith('~\\')) return paths.join(userHome, value.slice(2));
  if (paths.isAbsolute(value)) return value;
  return inputs.cwd === undefined ? undefined : paths.join(inputs.cwd, value);
}

function warnAboutRunner(command: string, rules: SandboxRules, diagnostics: ServerDiagnostics): void {
  const runner =
    command
      .replace(/\\/g, '/')
      .split('/')
      .pop()
      ?.replace(/\.(cmd|exe|bat)$/i, '') ?? '';
  const needed = RUNNER_DOMAINS[runner];
  if (!needed) return;
  const missing = needed.filter((domain) => !rules.network.allowedDomains.some((allowed) => domainCovers(allowed, domain)));
  if (missing.length === 0) return;
  diagnostics.warning(
    ['sandbox'],
    `"${runner}" downloads from ${missing.join(' and ')}, which the sandbox does not allow: add ${missing.map((domain) => `"${domain}"`).join(', ')} to sandbox.network.allowedDomains, or the server cannot fetch its package`,
  );
}

/** Whether an allowedDomains entry (`host`, `*.suffix`, with an optional port) admits `domain` on 443. */
export function domainCovers(pattern: string, domain: string): boolean {
  const [host, port] = pattern.split(/:(?=\d+$)/);
  if (port !== undefined && port !== '443') return false;
  if (host === undefined) return false;
  if (host.startsWith('*.')) return domain.toLowerCase().endsWith(host.slice(1).toLowerCase());
  return host.toLowerCase() === domain.toLowerCase();
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * *Run Sandboxed* from the consent dialog: whatever the workspace's entry asks for, the server may
 * write only its working folder (and the private temp folder every sandbox gets) and reach only the
 * domains the entry lists; the entry's denials still apply.
 */
export function workspaceConsentSandbox(rules: SandboxRules | undefined, cwd: string | undefined): SandboxSetting {
  const listed = rules ?? NO_SANDBOX_RULES;
  return {
    enabled: true,
    origin: 'workspaceConsent',
    rules: {
      filesystem: {
        allowWrite: cwd === undefined ? [] : [cwd],
        denyRead: listed.filesystem.denyRead,
        denyWrite: listed.filesystem.denyWrite,
      },
      network: listed.network,
    },
  };
}

/** `writes /a and temp; network x.com; no read ~/.ssh`: the rules in force, for logs, the tooltip and the doctor. */
export function describeSandboxRules(rules: SandboxRules): string {
  const writes = rules.filesystem.allowWrite.length > 0 ? `writes ${rules.filesystem.allowWrite.join(', ')} and temp` : 'writes temp only';
  const network = rules.network.allowedDomains.length > 0 ? `network ${rules.network.allowedDomains.join(', ')}` : 'no network';
  const denies = [
    ...rules.filesystem.denyRead.map((entry) => `no read ${entry}`),
    ...rules.filesystem.denyWrite.map((entry) => `no write ${entry}`),
    ...rules.network.deniedDomains.map((entry) => `no ${entry}`),
  ];
  return [writes, network, ...denies].join('; ');
}
