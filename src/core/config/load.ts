// loadConfiguration: gathers entries from the enabled sources, settles name clashes, and builds
// each server. It never throws on bad configuration; every problem is a ConfigDiagnostic.

import os from 'node:os';
import type { BuildContext, SandboxDefaults, ServerCandidate } from './buildContext';
import { buildServer } from './buildServer';
import type { ConfigurationInput, TeamListing } from './configurationInput';
import { nodeFileSystem } from './fileSystem';
import type { InputRequest, InputResolver } from './inputs';
import { appendPath } from './jsonPath';
import { pathModuleFor } from './paths';
import { resolveNameClashes } from './precedence';
import { sourceFiles } from './sourceLocations';
import { parseSourceList, readSourceFiles } from './sources';
import { teamEntries } from './teamSources';
import { withoutSwitchboardItself } from './switchboardEntries';
import type { z } from 'zod';
import { describeIssue, entrySchema, sandboxRulesSchema } from './entrySchema';

import { DEFAULT_LIFECYCLE, type ConfigDiagnostic, type InvalidServer, type LifecycleSettings, type ServerDefinition } from './types';
import type { InputLookup } from './variables';

export interface LoadedConfiguration {
  /** Settings entries in key order, then each file source's, in precedence order (sourceLocations.ts). */
  readonly servers: ReadonlyArray<ServerDefinition | InvalidServer>;
  /** Everything: file and source problems, clashes, and each server's own diagnostics. */
  readonly diagnostics: readonly ConfigDiagnostic[];
  /** The source files consulted, present or not: a change to any of them changes the servers. */
  readonly files: readonly string[];
  /** The team gateways consulted (base URLs): what they list changes without a file to watch. */
  readonly teams: readonly string[];
}

const UNREAD_TEAM: TeamListing = { kind: 'unlisted', reason: 'failed', message: 'this host does not read team gateways' };

export async function loadConfiguration(input: ConfigurationInput, resolver: InputResolver): Promise<LoadedConfiguration> {
  const platform = input.platform ?? process.platform;
  const env = input.env ?? process.env;
  const userHome = input.userHome ?? os.homedir();
  const paths = pathModuleFor(platform);
  const fs = input.fs ?? nodeFileSystem;
  const diagnostics: ConfigDiagnostic[] = [];

  const sourceList = parseSourceList(input.sources, input.sourcesOrigin ?? { kind: 'user' });
  diagnostics.push(...sourceList.diagnostics);

  const candidates: ServerCandidate[] = [];
  const fromSettings = input.entries.map((entry): ServerCandidate => ({
    ...entry,
    path: appendPath('servers', entry.name),
    inputs: new Map(),
  }));
  if (sourceList.sources.has('settings')) {
    candidates.push(...fromSettings);
  } else if (fromSettings.length > 0) {
    diagnostics.push({
      severity: 'warning',
      path: 'mcpSwitchboard.sources',
      message: `"settings" is not listed, so the ${fromSettings.length} server(s) in mcpSwitchboard.servers are not loaded`,
      source: input.sourcesOrigin ?? { kind: 'user' },
    });
  }

  const files = sourceFiles(sourceList.sources, {
    workspaceFolders: input.workspaceFolders,
    userHome,
    platform,
    paths,
    env,
    ...(input.editorUserDir ? { editorUserDir: input.editorUserDir } : {}),
  });
  for (const read of await readSourceFiles(files, fs)) {
    candidates.push(...read.candidates);
    diagnostics.push(...read.diagnostics);
  }
  // In parallel: each is a request to a gateway, bounded by the lister's own timeout.
  const listings = await Promise.all(
    sourceList.teams.map(async (base) => teamEntries(base, input.teams ? await input.teams(base) : UNREAD_TEAM)),
  );
  for (const team of listings) {
    candidates.push(...team.candidates);
    diagnostics.push(...team.diagnostics);
  }

  // Before name clashes: an entry for other agents does not hide one of the user's own.
  const notItself = withoutSwitchboardItself(candidates, input.launchers);
  diagnostics.push(...notItself.diagnostics);
  const deduplicated = resolveNameClashes(notItself.candidates);
  diagnostics.push(...deduplicated.diagnostics);

  const defaults = parseLifecycleDefaults(input.lifecycleDefaults);
  diagnostics.push(...defaults.diagnostics);
  const sandboxDefaults = parseSandboxDefaults(input.sandboxDefaults);
  diagnostics.push(...sandboxDefaults.diagnostics);
  const context: BuildContext = {
    workspaceFolders: input.workspaceFolders,
    lifecycleDefaults: defaults.lifecycle,
    sandboxDefaults: sandboxDefaults.defaults,
    userHome,
    paths,
    fs,
    lookupEnv: envLookup(env, platform),
    lookupInput: cachedInputs(resolver),
  };
  const servers: Array<ServerDefinition | InvalidServer> = [];
  // Sequential on purpose: the editor's resolver prompts, and prompts must not overlap.
  for (const candidate of deduplicated.candidates) {
    const built = await buildServer(candidate, context);
    servers.push(built.server);
    diagnostics.push(...built.diagnostics);
  }
  return { servers, diagnostics, files: [...new Set(files.map((file) => file.file))], teams: sourceList.teams };
}

/** Windows environment names are case-insensitive; elsewhere they are exact. */
function envLookup(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): (name: string) => string | undefined {
  if (platform !== 'win32') return (name) => env[name];
  return (name) => {
    if (env[name] !== undefined) return env[name];
    const lower = name.toLowerCase();
    const key = Object.keys(env).find((candidate) => candidate.toLowerCase() === lower);
    return key === undefined ? undefined : env[key];
  };
}

/** One answer per input id for the whole load, so two servers sharing a token prompt once. */
function cachedInputs(resolver: InputResolver): (request: InputRequest) => Promise<InputLookup> {
  const cache = new Map<string, Promise<InputLookup>>();
  return (request) => {
    let pending = cache.get(request.id);
    if (!pending) {
      // Promise.resolve().then also turns a resolver that throws synchronously into a rejection.
      pending = Promise.resolve()
        .then(() => resolver.resolve(request))
        .then(
          (value): InputLookup => (value === undefined ? { kind: 'missing' } : { kind: 'value', value }),
          (error: unknown): InputLookup => ({
            kind: 'error',
            message: `the input resolver failed: ${String(error instanceof Error ? error.message : error)}`,
          }),
        );
      cache.set(request.id, pending);
    }
    return pending;
  };
}

type SettingCheck = <T>(value: unknown, schema: z.ZodType<T>, setting: string) => T | undefined;

/** Checks one setting against an entry field's schema; a bad value is a warning and reads as unset. */
function settingChecker(diagnostics: ConfigDiagnostic[], source: ConfigDiagnostic['source']): SettingCheck {
  return <T>(value: unknown, schema: z.ZodType<T>, setting: string): T | undefined => {
    if (value === undefined || value === null) return undefined;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    diagnostics.push({
      severity: 'warning',
      path: setting,
      message: `${describeIssue(parsed.error.issues[0] as z.core.$ZodIssue, value)}; using the default`,
      source,
    });
    return undefined;
  };
}

/**
 * The user's sandbox defaults. A broken `rules` value is not used: sandboxed servers then get the
 * built-in rules (their folder, no network), which never give more than the value meant to.
 */
function parseSandboxDefaults(raw: ConfigurationInput['sandboxDefaults']): { defaults: SandboxDefaults; diagnostics: ConfigDiagnostic[] } {
  const diagnostics: ConfigDiagnostic[] = [];
  const check = settingChecker(diagnostics, raw?.origin ?? { kind: 'user' });
  const enabled = check(raw?.enabled, entrySchema.shape.sandboxEnabled.unwrap(), 'mcpSwitchboard.sandbox.enabled') ?? false;
  const rules = check(raw?.rules, sandboxRulesSchema, 'mcpSwitchboard.sandbox.rules');
  return { defaults: { enabled, rules }, diagnostics };
}

/**
 * The settings-wide lifecycle defaults, checked with the entry fields' own rules. A bad value is a
 * warning naming the setting, and the built-in default applies: no server is lost over it.
 */
function parseLifecycleDefaults(raw: ConfigurationInput['lifecycleDefaults']): {
  lifecycle: LifecycleSettings;
  diagnostics: ConfigDiagnostic[];
} {
  const diagnostics: ConfigDiagnostic[] = [];
  const check = settingChecker(diagnostics, raw?.origin ?? { kind: 'user' });
  const start = check(raw?.lifecycle, entrySchema.shape.lifecycle.unwrap(), 'mcpSwitchboard.defaultLifecycle');
  const minutes = check(raw?.idleStopMinutes, entrySchema.shape.idleStopMinutes.unwrap(), 'mcpSwitchboard.defaultIdleStopMinutes');
  return {
    lifecycle: {
      start: start ?? DEFAULT_LIFECYCLE.start,
      idleStopMs: minutes === undefined ? DEFAULT_LIFECYCLE.idleStopMs : Math.round(minutes * 60_000),
    },
    diagnostics,
  };
}
