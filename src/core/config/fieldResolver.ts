// Expands the strings of one server entry, reporting problems at each field's path and collecting
// the values that must be redacted.

import type { BuildContext, ServerCandidate } from './buildContext';
import { isSecretName } from './secrets';
import type { ServerDiagnostics } from './serverDiagnostics';
import { expandVariables, type VariableScope } from './variables';

export class FieldResolver {
  private readonly found = new Set<string>();
  private readonly scope: VariableScope;

  constructor(
    candidate: ServerCandidate,
    context: BuildContext,
    private readonly diagnostics: ServerDiagnostics,
    enabled: boolean,
  ) {
    this.scope = {
      workspaceFolders: context.workspaceFolders,
      userHome: context.userHome,
      pathSeparator: context.paths.sep,
      lookupEnv: (name) => context.lookupEnv(name),
      lookupInput: (id) =>
        context.lookupInput({
          ...candidate.inputs.get(id),
          id,
          server: candidate.name,
          source: candidate.source,
          enabled,
        }),
    };
  }

  async string(value: string, segments: readonly PropertyKey[]): Promise<string | undefined> {
    const expansion = await expandVariables(value, this.scope);
    for (const problem of expansion.problems) {
      if (problem.severity === 'error') this.diagnostics.error(segments, problem.message);
      else this.diagnostics.warning(segments, problem.message);
    }
    for (const id of expansion.missingInputs) this.diagnostics.missingInput(segments, id);
    for (const secret of expansion.secretValues) this.addSecret(secret);
    return expansion.value;
  }

  /** Values that are credentials by position: URL user-info and query keys, flag values. */
  collectValues(values: readonly string[]): void {
    for (const value of values) this.addSecret(value);
  }

  collectSecrets(map: Readonly<Record<string, string>>): void {
    for (const [key, value] of Object.entries(map)) {
      if (isSecretName(key)) this.addSecret(value);
    }
  }

  secrets(): string[] {
    return [...this.found];
  }

  private addSecret(value: string): void {
    if (value !== '') this.found.add(value);
  }
}
