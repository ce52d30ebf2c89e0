// The filter rules that decide which tools chat sees, applied in a fixed order; the first rule a
// tool fails is the reason it is hidden. Pure functions over names and flags: no I/O, no state.
import picomatch from 'picomatch';
import type { ToolFilterSettings } from '../config';
import type { FilterRule } from './types';

import { DISABLED_SETTING, GLOBAL_DENY_SETTING, MAX_EXPOSED_SETTING, TOOL_SET_SETTING } from './settingNames';
import { errorMessage } from '../base/errorMessage';

export { MAX_EXPOSED_SETTING, SERVERS_SETTING } from './settingNames';

export interface GlobPattern {
  readonly pattern: string;
  /** Throws when the pattern itself is unusable, so that the step using it fails visibly. */
  test(name: string): boolean;
}

/**
 * A glob as the user wrote it. `*` does not cross `/` (so `git/*` is every tool of `git`); `**`
 * does. Dotted names match like any other. An unusable pattern compiles to a matcher that throws.
 */
export function compileGlob(pattern: unknown): GlobPattern {
  const text = typeof pattern === 'string' ? pattern : String(pattern);
  try {
    if (typeof pattern !== 'string') throw new TypeError(`expected a string, got ${typeof pattern}`);
    const matcher = picomatch(pattern, { dot: true });
    // What the matcher does per call, without the two result objects it allocates each time: an
    // exact match, else the compiled expression. Only where it does not rewrite the input first
    // (with `windows` it turns backslashes into slashes); there the matcher itself runs.
    const { regex, posix } = matcher('', true);
    if (posix || regex.global || regex.sticky) return { pattern: text, test: (name) => matcher(name) };
    return {
      pattern: text,
      test: (name) => {
        if (typeof name !== 'string') throw new TypeError('Expected input to be a string');
        return name !== '' && (name === pattern || regex.test(name));
      },
    };
  } catch (error) {
    const message = `pattern ${JSON.stringify(text)} is not usable: ${errorMessage(error)}`;
    return {
      pattern: text,
      test: () => {
        throw new Error(message);
      },
    };
  }
}

export interface FilterContext {
  readonly server: string;
  /** Undefined: no allow list, everything is allowed. */
  readonly allow: readonly GlobPattern[] | undefined;
  readonly deny: readonly GlobPattern[];
  readonly readOnly: boolean;
  readonly globalDeny: readonly GlobPattern[];
  /** `server/tool` entries of the disabled setting. */
  readonly disabled: ReadonlySet<string>;
  readonly toolSet?: CompiledGlobalFilters['toolSet'];
}

export interface FilterSubject {
  readonly server: string;
  readonly name: string;
  readonly readOnly: boolean;
  /** `server/tool`, when the caller has it already (the snapshot does): not built again per step. */
  readonly qualified?: string | undefined;
}

export interface FilterStep {
  readonly name: string;
  /** The rule that hides the tool, or undefined when the tool passes this step. */
  apply(subject: FilterSubject, context: FilterContext): FilterRule | undefined;
}

/**
 * The tool set in use (`mcpSwitchboard.toolSet`, one of `mcpSwitchboard.toolSets`): chat sees only
 * the tools of its servers and those its globs (on `server/tool`) match.
 */
export interface ToolSetFilter {
  readonly name: string;
  readonly servers: readonly string[];
  readonly tools: readonly string[];
}

export interface GlobalFilterSettings {
  readonly globalDeny: readonly string[];
  readonly disabled: readonly string[];
  readonly toolSet?: ToolSetFilter | undefined;
}

/** Compiled once per global settings value and shared by every server's context. */
export interface CompiledGlobalFilters {
  readonly globalDeny: readonly GlobPattern[];
  readonly disabled: ReadonlySet<string>;
  readonly toolSet?: { readonly rule: FilterRule; readonly servers: ReadonlySet<string>; readonly tools: readonly GlobPattern[] };
}

export function compileGlobalFilters(settings: GlobalFilterSettings): CompiledGlobalFilters {
  const set = settings.toolSet;
  return {
    globalDeny: settings.globalDeny.map(compileGlob),
    disabled: new Set(settings.disabled),
    ...(set
      ? {
          toolSet: {
            rule: Object.freeze({ kind: 'toolSet', name: set.name }),
            servers: new Set(set.servers),
            tools: set.tools.map(compileGlob),
          },
        }
      : {}),
  };
}

export function filterContext(server: string, filters: ToolFilterSettings | undefined, global: CompiledGlobalFilters): FilterContext {
  return {
    server,
    allow: filters?.allow?.map(compileGlob),
    deny: (filters?.deny ?? []).map(compileGlob),
    readOnly: filters?.readOnly === true,
    globalDeny: global.globalDeny,
    disabled: global.disabled,
    toolSet: global.toolSet,
  };
}

/** The tool set in use: a tool of a server it names, or one its globs match; every other tool is outside it. */
export const toolSetStep: FilterStep = {
  name: TOOL_SET_SETTING,
  apply(subject, context) {
    const set = context.toolSet;
    if (!set || set.servers.has(subject.server)) return undefined;
    const qualified = qualifiedOf(subject);
    return set.tools.some((glob) => glob.test(qualified)) ? undefined : set.rule;
  },
};

export const serverAllowDenyStep: FilterStep = {
  name: 'tools.allow/tools.deny',
  apply(subject, context) {
    // Deny is checked first so that it wins over an allow pattern matching the same tool.
    for (const glob of context.deny) if (glob.test(subject.name)) return denyRule(serverDenyRules, 'serverDeny', glob);
    if (context.allow && !context.allow.some((glob) => glob.test(subject.name))) return SERVER_ALLOW;
    return undefined;
  },
};

export const globalDenyStep: FilterStep = {
  name: GLOBAL_DENY_SETTING,
  apply(subject, context) {
    const qualified = qualifiedOf(subject);
    for (const glob of context.globalDeny) if (glob.test(qualified)) return denyRule(globalDenyRules, 'globalDeny', glob);
    return undefined;
  },
};

export const disabledStep: FilterStep = {
  name: DISABLED_SETTING,
  apply(subject, context) {
    return context.disabled.has(qualifiedOf(subject)) ? DISABLED : undefined;
  },
};

export const readOnlyStep: FilterStep = {
  name: 'tools.readOnly',
  apply(subject, context) {
    return context.readOnly && !subject.readOnly ? READ_ONLY_ONLY : undefined;
  },
};

function qualifiedOf(subject: FilterSubject): string {
  return subject.qualified ?? `${subject.server}/${subject.name}`;
}

/** In the order the rules apply. */
export const FILTER_STEPS: readonly FilterStep[] = [toolSetStep, serverAllowDenyStep, globalDenyStep, disabledStep, readOnlyStep];

const SERVER_ALLOW: FilterRule = Object.freeze({ kind: 'serverAllow' });
const DISABLED: FilterRule = Object.freeze({ kind: 'disabledSetting' });
const READ_ONLY_ONLY: FilterRule = Object.freeze({ kind: 'readOnlyOnly' });

/**
 * Rules are shared and frozen (deny rules per compiled pattern), so every tool a rule hides points
 * at the same one; only filterError rules are made per tool.
 */
const serverDenyRules = new WeakMap<GlobPattern, FilterRule>();
const globalDenyRules = new WeakMap<GlobPattern, FilterRule>();

function denyRule(rules: WeakMap<GlobPattern, FilterRule>, kind: 'serverDeny' | 'globalDeny', glob: GlobPattern): FilterRule {
  const known = rules.get(glob);
  if (known) return known;
  const rule: FilterRule = Object.freeze(kind === 'serverDeny' ? { kind, pattern: glob.pattern } : { kind, pattern: glob.pattern });
  rules.set(glob, rule);
  return rule;
}

function stepError(step: FilterStep, error: unknown): FilterRule {
  return { kind: 'filterError', reason: `${step.name}: ${errorMessage(error)}` };
}

/**
 * The first rule that hides the tool, or undefined when it passes them all. A step that throws
 * hides the tool with a `filterError` naming the step: failing closed never exposes a tool the
 * user meant to hide.
 */
export function evaluateFilters(
  subject: FilterSubject,
  context: FilterContext,
  steps: readonly FilterStep[] = FILTER_STEPS,
): FilterRule | undefined {
  for (const step of steps) {
    let rule: FilterRule | undefined;
    try {
      rule = step.apply(subject, context);
    } catch (error) {
      return stepError(step, error);
    }
    if (rule) return rule;
  }
  return undefined;
}

/** Allow patterns that match none of `names` (unusable patterns are reported by the filter step). */
export function unmatchedAllowPatterns(context: FilterContext, names: readonly string[]): string[] {
  if (!context.allow) return [];
  const unmatched: string[] = [];
  for (const glob of context.allow) {
    try {
      if (!names.some((name) => glob.test(name))) unmatched.push(glob.pattern);
    } catch {
      // Reported per tool as a filterError.
    }
  }
  return unmatched;
}

/** One line naming the rule, for errors and the UI. */
export function describeFilterRule(rule: FilterRule, server: string): string {
  switch (rule.kind) {
    case 'serverDeny':
      return `denied by the tools.deny pattern "${rule.pattern}" of server "${server}"`;
    case 'serverAllow':
      return `not matched by the tools.allow list of server "${server}"`;
    case 'globalDeny':
      return `denied by the ${GLOBAL_DENY_SETTING} pattern "${rule.pattern}"`;
    case 'disabledSetting':
      return `disabled in ${DISABLED_SETTING}`;
    case 'readOnlyOnly':
      return `hidden because server "${server}" has tools.readOnly and the tool has no readOnlyHint`;
    case 'malformedSchema':
      return `hidden because its schema is malformed: ${rule.reason}`;
    case 'filterError':
      return `hidden because a filter failed: ${rule.reason}`;
    case 'budget':
      return `hidden because more tools are eligible than ${MAX_EXPOSED_SETTING} (${rule.maxExposed})`;
    case 'toolSet':
      return `not in the tool set "${rule.name}" (${TOOL_SET_SETTING})`;
    case 'policy':
      return "not granted by the gateway's policy";
  }
}

/**
 * The rule in the few words a tool's row has room for (the full reason is describeFilterRule's,
 * in its tooltip): at the default sidebar width a row shows about 30 characters of it.
 */
export function shortFilterRule(rule: FilterRule): string {
  const quoted = (text: string) => `"${text.length > 16 ? `${text.slice(0, 15)}…` : text}"`;
  switch (rule.kind) {
    case 'serverDeny':
      return `tools.deny ${quoted(rule.pattern)}`;
    case 'serverAllow':
      return 'not in tools.allow';
    case 'globalDeny':
      return `global deny ${quoted(rule.pattern)}`;
    case 'disabledSetting':
      return 'switched off';
    case 'readOnlyOnly':
      return 'not read-only';
    case 'malformedSchema':
      return 'malformed schema';
    case 'filterError':
      return 'a filter failed';
    case 'budget':
      return 'past the budget: by search';
    case 'toolSet':
      return `not in tool set ${quoted(rule.name)}`;
    case 'policy':
      return 'not granted';
  }
}
