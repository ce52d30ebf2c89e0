// Collects the diagnostics of one server entry, all anchored at its JSON path, and caps how many a
// single pathological entry (10k bad arguments) can produce.

import { joinPath, type PathSegment } from './jsonPath';
import { MAX_DIAGNOSTICS_PER_SERVER } from './limits';
import type { ConfigDiagnostic, DiagnosticSeverity, ServerSource } from './types';

export class ServerDiagnostics {
  private readonly items: ConfigDiagnostic[] = [];
  private readonly missingInputs = new Set<string>();
  private inputOnlyErrors = 0;

  constructor(
    private readonly server: string,
    private readonly basePath: string,
    private readonly source: ServerSource,
  ) {}

  error(segments: readonly PropertyKey[], message: string): void {
    this.add('error', segments, message);
  }

  warning(segments: readonly PropertyKey[], message: string): void {
    this.add('warning', segments, message);
  }

  /** An error that goes away once the user supplies an input; see InvalidServer.needsInput. */
  missingInput(segments: readonly PropertyKey[], id: string): void {
    this.inputOnlyErrors++;
    this.missingInputs.add(id);
    this.add('error', segments, `needs a value for \${input:${id}}`);
  }

  get hasErrors(): boolean {
    return this.items.some((item) => item.severity === 'error');
  }

  /** The missing input ids when they are the only errors: the server is blocked, not broken. */
  blockingInputs(): string[] | undefined {
    const errors = this.items.filter((item) => item.severity === 'error').length;
    return this.inputOnlyErrors > 0 && errors === this.inputOnlyErrors ? [...this.missingInputs] : undefined;
  }

  list(): ConfigDiagnostic[] {
    if (this.items.length <= MAX_DIAGNOSTICS_PER_SERVER) return [...this.items];
    const shown = this.items.slice(0, MAX_DIAGNOSTICS_PER_SERVER);
    const hidden = this.items.slice(MAX_DIAGNOSTICS_PER_SERVER);
    shown.push({
      severity: hidden.some((item) => item.severity === 'error') ? 'error' : 'warning',
      server: this.server,
      path: this.basePath,
      message: `${hidden.length} more problems are not shown`,
      source: this.source,
    });
    return shown;
  }

  private add(severity: DiagnosticSeverity, segments: readonly PropertyKey[], message: string): void {
    this.items.push({
      severity,
      server: this.server,
      path: joinPath(this.basePath, segments.map(toSegment)),
      message,
      source: this.source,
    });
  }
}

function toSegment(key: PropertyKey): PathSegment {
  return typeof key === 'number' ? key : String(key);
}
