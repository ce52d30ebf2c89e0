// `${...}` expansion for one string. Expansion is single-pass: a substituted value is never scanned
// again, so `${env:A}` whose value is literally `${env:A}` yields that text once, with a warning,
// instead of looping or recursing. Nested references (`${env:A:-${env:B}}`) are rejected for the
// same reason.

import type { WorkspaceFolder } from './configurationInput';
import { MAX_STRING_LENGTH } from './limits';
import { isSecretName } from './secrets';

export type InputLookup =
  { readonly kind: 'value'; readonly value: string } | { readonly kind: 'missing' } | { readonly kind: 'error'; readonly message: string };

export interface VariableScope {
  readonly workspaceFolders: readonly WorkspaceFolder[];
  readonly userHome: string;
  readonly pathSeparator: string;
  lookupEnv(name: string): string | undefined;
  lookupInput(id: string): Promise<InputLookup>;
}

export interface ExpansionProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

export interface Expansion {
  /** Undefined when an error or a missing input prevented a complete value. */
  readonly value: string | undefined;
  readonly problems: readonly ExpansionProblem[];
  /** Substituted values that are secrets: every `${input:...}`, and `${env:NAME}` with a secret-looking NAME. */
  readonly secretValues: readonly string[];
  readonly missingInputs: readonly string[];
}

const REFERENCE = /\$\{([^}]*)\}/g;

export async function expandVariables(text: string, scope: VariableScope): Promise<Expansion> {
  if (!text.includes('${')) return { value: text, problems: [], secretValues: [], missingInputs: [] };
  const problems: ExpansionProblem[] = [];
  const secretValues: string[] = [];
  const missingInputs: string[] = [];
  let failed = false;
  let result = '';
  let last = 0;
  for (const match of text.matchAll(REFERENCE)) {
    const index = match.index ?? 0;
    result += text.slice(last, index);
    last = index + match[0].length;
    const body = match[1] ?? '';
    const substitution = await substitute(body, scope);
    if (substitution.kind === 'value') {
      if (substitution.value.includes('${')) {
        problems.push({
          severity: 'warning',
          message: `the value of \${${body}} contains "\${", which is used literally: variables are expanded once`,
        });
      }
      if (substitution.secret) secretValues.push(substitution.value);
      result += substitution.value;
    } else {
      failed = true;
      if (substitution.kind === 'missingInput') missingInputs.push(substitution.id);
      else problems.push({ severity: 'error', message: substitution.message });
    }
  }
  const tail = text.slice(last);
  if (tail.includes('${')) {
    problems.push({ severity: 'warning', message: 'unterminated "${" is used literally' });
  }
  result += tail;
  if (!failed && result.length > MAX_STRING_LENGTH) {
    problems.push({ severity: 'error', message: `is ${result.length} characters after expansion; the limit is ${MAX_STRING_LENGTH}` });
    failed = true;
  }
  return { value: failed ? undefined : result, problems, secretValues, missingInputs };
}

type Substitution =
  | { readonly kind: 'value'; readonly value: string; readonly secret: boolean }
  | { readonly kind: 'missingInput'; readonly id: string }
  | { readonly kind: 'error'; readonly message: string };

async function substitute(body: string, scope: VariableScope): Promise<Substitution> {
  const value = (text: string): Substitution => ({ kind: 'value', value: text, secret: false });
  const error = (message: string): Substitution => ({ kind: 'error', message });
  if (body.includes('${')) return error(`nested variable reference "\${${body}}" is not supported`);
  if (body === 'userHome') return value(scope.userHome);
  if (body === 'pathSeparator' || body === '/') return value(scope.pathSeparator);
  if (body === 'workspaceFolder') {
    const first = scope.workspaceFolders[0];
    return first ? value(first.path) : error('${workspaceFolder} is used but no workspace folder is open');
  }
  const colon = body.indexOf(':');
  const kind = colon < 0 ? body : body.slice(0, colon);
  const argument = colon < 0 ? '' : body.slice(colon + 1);
  if (colon >= 0 && kind === 'workspaceFolder') {
    const folder = scope.workspaceFolders.find((candidate) => candidate.name === argument);
    if (folder) return value(folder.path);
    const open = scope.workspaceFolders.map((candidate) => `"${candidate.name}"`).join(', ') || 'none';
    return error(`\${workspaceFolder:${argument}}: no workspace folder is named "${argument}" (open: ${open})`);
  }
  if (colon >= 0 && kind === 'env') return substituteEnv(argument, scope);
  if (colon >= 0 && kind === 'input') {
    if (argument === '') return error('${input:} needs an input id');
    const lookup = await scope.lookupInput(argument);
    if (lookup.kind === 'value') return { kind: 'value', value: lookup.value, secret: true };
    if (lookup.kind === 'missing') return { kind: 'missingInput', id: argument };
    return error(`\${input:${argument}}: ${lookup.message}`);
  }
  return error(`unknown variable \${${body}}`);
}

/** `NAME` or `NAME:-default`; as in the shell, the default also replaces an empty value. */
function substituteEnv(spec: string, scope: VariableScope): Substitution {
  const separator = spec.indexOf(':-');
  const name = separator < 0 ? spec : spec.slice(0, separator);
  const fallback = separator < 0 ? undefined : spec.slice(separator + 2);
  if (name === '') return { kind: 'error', message: `\${env:${spec}} needs a variable name` };
  const found = scope.lookupEnv(name);
  if (fallback !== undefined && (found === undefined || found === '')) {
    return { kind: 'value', value: fallback, secret: false };
  }
  if (found === undefined) {
    return {
      kind: 'error',
      message: `environment variable ${name} is not set (\${env:${name}}); set it or write \${env:${name}:-default}`,
    };
  }
  return { kind: 'value', value: found, secret: isSecretName(name) };
}
