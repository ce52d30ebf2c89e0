// The filter rules that decide which tools chat sees, applied in a fixed order; the first rule a
// tool fails is the reason it is hidden. Pure functions over names and flags: no I/O, no state.
import picomatch from 'picomatch';
import type { ToolFilterSettings } from '../config/types';
import type { FilterRule } from './types';

export const GLOBAL_DENY_SETTING = 'mcpSwitchboard.tools.deny';
export const DISABLED_SETTING = 'mcpSwitchboard.tools.disabled';
export const MAX_EXPOSED_SETTING = 'mcpSwitchboard.tools.maxExposed';
export const SERVERS_SETTING = 'mcpSwitchboard.servers';

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
    return { pattern: text, test: (name) => matcher(name) };
  } catch (error) {
    const message = `pattern ${JSON.stringify(text)} is not usable: ${error instanceof Error ? error.message : String(error)}`;
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
}

export interface FilterSubject {
  readonly server: string;
  readonly name: string;
  readonly readOnly: boolean;
}

export interface FilterStep {
  readonly name: string;
  /** The rule that hides the tool, or undefined when the tool passes this step. */
  apply(subject: FilterSubject, context: FilterContext): FilterRule | undefined;
}

export interface GlobalFilterSettings {
  readonly globalDeny: readonly string[];
  readonly disabled: readonly string[];
}

/** Compiled once per global settings value and shared by every server's context. */
export interface CompiledGlobalFilters {
  readonly globalDeny: readonly GlobPattern[];
  readonly disabled: ReadonlySet<string>;
}

export function compileGlobalFilters(settings: GlobalFilterSettings): CompiledGlobalFilters {
  return { globalDeny: settings.globalDeny.map(compileGlob), disabled: new Set(settings.disabled) };
}

export function filterContext(server: string, filters: ToolFilterSettings | undefined, global: CompiledGlobalFilters): FilterContext {
  return {
    server,
    allow: filters?.allow?.map(compileGlob),
    deny: (filters?.deny ?? []).map(compileGlob),
    readOnly: filters?.readOnly === true,
    globalDeny: global.globalDeny,
    disabled: global.disabled,
  };
}

export const serverAllowDenyStep: FilterStep = {
  name: 'tools.allow/tools.deny',
  apply(subject, context) {
    // Deny is checked first so that it wins over an allow pattern matching the same tool.
    const denied = context.deny.find((glob) => glob.test(subject.name));
    if (denied) return { kind: 'serverDeny', pattern: denied.pattern };
    if (context.allow && !context.allow.some((glob) => glob.test(subject.name))) return { kind: 'serverAllow' };
    return undefined;
  },
};

export const globalDenyStep: FilterStep = {
  name: GLOBAL_DENY_SETTING,
  apply(subject, context) {
    const qualified = `${subject.server}/${subject.name}`;
    const denied = context.globalDeny.find((glob) => glob.test(qualified));
    return denied ? { kind: 'globalDeny', pattern: denied.pattern } : undefined;
  },
};

export const disabledStep: FilterStep = {
  name: DISABLED_SETTING,
  apply(subject, context) {
    return context.disabled.has(`${subject.server}/${subject.name}`) ? { kind: 'disabledSetting' } : undefined;
  },
};

export const readOnlyStep: FilterStep = {
  name: 'tools.readOnly',
  apply(subject, context) {
    return context.readOnly && !subject.readOnly ? { kind: 'readOnlyOnly' } : undefined;
  },
};

/** In the order the rules apply. */
export const FILTER_STEPS: readonly FilterStep[] = [serverAllowDenyStep, globalDenyStep, disabledStep, readOnlyStep];

/**
 * The first rule that hides the tool, or undefined when it passes them all. A step that throws
 * hides the tool with a `filterError` naming the step: failing closed never exposes a tool the
 * user meant to hide.
 */
export function evaluateFilters(subject: FilterSubject, context: FilterContext, steps: readonly FilterStep[] = FILTER_STEPS): FilterRule | undefined {
  for (const step of steps) {
    let rule: FilterRule | undefined;
    try {
      rule = step.apply(subject, context);
    } catch (error) {
      return { kind: 'filterError', reason: `${step.name}: ${error instanceof Error ? error.message : String(error)}` };
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
  }
}
