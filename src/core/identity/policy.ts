// Which servers and tools a user of a team gateway may see and call, from the claims of their
// token. A policy file is a list of rules; a rule matches a principal by subject, groups, scopes or
// any claim, and allows or denies servers and tools by glob. Nothing is allowed that no matching
// rule allows, and a matching deny beats every allow. Without a policy file every signed-in user
// sees what the gateway serves (one person, or a team that trusts all its members alike).
import { z } from 'zod';
import { compileGlob, type GlobPattern } from '../catalog';
import type { Principal } from './principal';

/** Bounds on a policy file: it is an operator's, but a typo must not cost every request much. */
const MAX_RULES = 512;
const MAX_LIST = 256;
const MAX_TEXT = 256;

const text = z.string().min(1).max(MAX_TEXT);
const list = z.array(text).min(1).max(MAX_LIST);

const matchSchema = z
  .object({
    subjects: list.optional(),
    groups: list.optional(),
    scopes: list.optional(),
    /** Any other claim: its value (a string, or one of a list of strings) is one of these. */
    claims: z.record(text, list).optional(),
  })
  .strict();

const targetSchema = z
  .object({
    servers: list,
    /** Tool names (upstream names) on those servers; every tool when absent. */
    tools: list.optional(),
  })
  .strict();

const ruleSchema = z
  .object({
    /** Shown in the audit log when the rule denies a call. */
    name: text.optional(),
    /** Every key given must match (any of its values); `{}` or absent matches every signed-in user. */
    match: matchSchema.optional(),
    allow: targetSchema.optional(),
    deny: targetSchema.optional(),
  })
  .strict()
  .refine((rule) => (rule.allow === undefined) !== (rule.deny === undefined), { message: 'a rule has either "allow" or "deny"' });

export const policySchema = z
  .object({
    /** The claim that lists a user's groups (`groups` by default; Entra ID app roles: `roles`). */
    groupsClaim: text.optional(),
    rules: z.array(ruleSchema).max(MAX_RULES),
  })
  .strict();

export type PolicyFile = z.infer<typeof policySchema>;

interface CompiledTarget {
  readonly servers: readonly GlobPattern[];
  readonly tools: readonly GlobPattern[] | undefined;
}

interface CompiledRule {
  readonly index: number;
  readonly name: string;
  readonly match: z.infer<typeof matchSchema>;
  readonly effect: 'allow' | 'deny';
  readonly target: CompiledTarget;
}

/** What one principal may see and call: the same for every principal the same rules match. */
export interface Grant {
  /** The rules that matched, as one string: principals with equal keys have equal grants. */
  readonly key: string;
  /** Whether any tool of the server may be seen (and so its resources and prompts). */
  allowsServer(server: string): boolean;
  allowsTool(server: string, tool: string): boolean;
  /** The rule that keeps the tool from this principal (for the audit log), or undefined when it is allowed. */
  denialOf(server: string, tool: string): string | undefined;
}

/** Everything: the grant when the gateway has no policy. */
export const FULL_GRANT: Grant = {
  key: '*',
  allowsServer: () => true,
  allowsTool: () => true,
  denialOf: () => undefined,
};

export class AccessPolicy {
  private readonly rules: readonly CompiledRule[];
  private readonly groupsClaim: string;
  /** Grants by rule set: a team has few distinct ones however many users it has. */
  private readonly grants = new Map<string, Grant>();

  private constructor(file: PolicyFile) {
    this.groupsClaim = file.groupsClaim ?? 'groups';
    this.rules = file.rules.map((rule, index) => {
      const effect = rule.allow ? 'allow' : 'deny';
      const target = (rule.allow ?? rule.deny) as z.infer<typeof targetSchema>;
      const compile = (patterns: readonly string[]) =>
        patterns.map((pattern) => {
          const glob = compileGlob(pattern);
          glob.test('probe'); // An unusable pattern throws here, at load, naming the rule.
          return glob;
        });
      try {
        return {
          index,
          name: rule.name ?? `rule ${index + 1}`,
          match: rule.match ?? {},
          effect,
          target: { servers: compile(target.servers), tools: target.tools && compile(target.tools) },
        };
      } catch (error) {
        throw new Error(`Policy rule ${index + 1}: ${(error as Error).message}`);
      }
    });
  }

  /** Throws an Error naming the first thing wrong (the path and the rule number). */
  static parse(json: unknown): AccessPolicy {
    const parsed = policySchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'the policy';
      throw new Error(`Policy: ${where}: ${issue?.message ?? 'invalid'}`);
    }
    return new AccessPolicy(parsed.data);
  }

  get ruleCount(): number {
    return this.rules.length;
  }

  grantFor(principal: Principal): Grant {
    const matched = this.rules.filter((rule) => this.matches(rule, principal));
    const key = matched.map((rule) => rule.index).join(',');
    let grant = this.grants.get(key);
    if (!grant) {
      grant = compileGrant(key, matched);
      // Bounded by the number of distinct rule sets seen; a policy that yields more is unusual.
      if (this.grants.size >= 4096) this.grants.clear();
      this.grants.set(key, grant);
    }
    return grant;
  }

  private matches(rule: CompiledRule, principal: Principal): boolean {
    const { subjects, groups, scopes, claims } = rule.match;
    if (subjects && !subjects.includes(principal.subject)) return false;
    if (groups && !anyOf(claimValues(principal.claims[this.groupsClaim]), groups)) return false;
    if (scopes && !anyOf(principal.scopes, scopes)) return false;
    if (claims) {
      for (const [claim, values] of Object.entries(claims)) {
        if (!anyOf(claimValues(principal.claims[claim]), values)) return false;
      }
    }
    return true;
  }
}

function compileGrant(key: string, rules: readonly CompiledRule[]): Grant {
  const allows = rules.filter((rule) => rule.effect === 'allow');
  const denies = rules.filter((rule) => rule.effect === 'deny');
  const covers = (target: CompiledTarget, server: string, tool: string | undefined) =>
    target.servers.some((glob) => glob.test(server)) &&
    (tool === undefined || target.tools === undefined || target.tools.some((glob) => glob.test(tool)));
  // A deny of whole servers (no tools listed) hides the server; a deny of some tools does not.
  const serverDenied = (server: string) => denies.some((rule) => rule.target.tools === undefined && covers(rule.target, server, undefined));
  const cache = new Map<string, string | undefined>();
  const denialOf = (server: string, tool: string): string | undefined => {
    const id = `${server}\u0000${tool}`;
    if (cache.has(id)) return cache.get(id);
    const deny = denies.find((rule) => covers(rule.target, server, tool));
    const reason = deny ? deny.name : allows.some((rule) => covers(rule.target, server, tool)) ? undefined : 'no rule allows it';
    if (cache.size >= 65_536) cache.clear();
    cache.set(id, reason);
    return reason;
  };
  return {
    key,
    allowsServer: (server) => !serverDenied(server) && allows.some((rule) => covers(rule.target, server, undefined)),
    allowsTool: (server, tool) => denialOf(server, tool) === undefined,
    denialOf,
  };
}

function claimValues(value: unknown): readonly string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

function anyOf(have: readonly string[], wanted: readonly string[]): boolean {
  return wanted.some((value) => have.includes(value));
}
