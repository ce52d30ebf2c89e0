// `--json`: a stable, documented shape for scripts. Keys are listed explicitly (not spread from the
// report) so that a field added to the report for the table does not leak into the contract.
import type { ConfigDiagnostic } from '../../config';
import type { DoctorReport, OfferReport, ProtocolReport, ServerReport } from './report';

export interface JsonDiagnostic {
  readonly severity: ConfigDiagnostic['severity'];
  readonly path: string;
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

export interface JsonServer {
  readonly name: string;
  readonly source: string;
  /** `workspace`: the folder's own files (run only with consent); `user`: the user's. */
  readonly definedBy: ServerReport['definedBy'];
  readonly state: string;
  readonly connectMs: number | null;
  readonly protocol: ProtocolReport | null;
  readonly error?: string;
  readonly diagnostics: readonly JsonDiagnostic[];
  readonly tools: readonly JsonTool[];
  /** Declared by the server (tools, resources, prompts, completions, logging, ...); null unless running. */
  readonly capabilities: readonly string[] | null;
  /** What the server tells a model (its `instructions`); null when it gives none or is not running. */
  readonly instructions: string | null;
  readonly resources: OfferReport['resources'];
  readonly resourceTemplates: OfferReport['resourceTemplates'];
  readonly prompts: OfferReport['prompts'];
  /** `start`: eager or lazy; `idleStopMinutes`: 0 for never. Null for an invalid entry. */
  readonly lifecycle: ServerReport['lifecycle'];
  /** The sandbox's rules (paths resolved) and where they came from; null: not sandboxed. */
  readonly sandbox: ServerReport['sandbox'];
}

export interface JsonTool {
  readonly name: string;
  readonly title?: string;
  readonly qualifiedName: string;
  readonly readOnly: boolean;
  readonly exposed: boolean;
  /** Only when `exposed` is false. */
  readonly filteredBy?: string;
  /** `required`: a plain call runs as a task (Switchboard follows it); absent: no tasks. */
  readonly taskSupport?: 'optional' | 'required';
}

export interface JsonReport {
  readonly servers: readonly JsonServer[];
}

export function toJsonReport(report: DoctorReport): JsonReport {
  return { servers: report.servers.map(jsonServer) };
}

export function formatJsonReport(report: DoctorReport): string {
  return `${JSON.stringify(toJsonReport(report), null, 2)}\n`;
}

function jsonServer(server: ServerReport): JsonServer {
  return {
    name: server.name,
    source: server.source,
    definedBy: server.definedBy,
    state: server.state,
    connectMs: server.connectMs,
    protocol: server.protocol,
    ...(server.error === undefined ? {} : { error: server.error }),
    diagnostics: server.diagnostics.map(jsonDiagnostic),
    tools: server.tools.map((tool): JsonTool => ({
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      qualifiedName: tool.qualifiedName,
      readOnly: tool.readOnly,
      exposed: tool.exposed,
      ...(tool.filteredBy === undefined ? {} : { filteredBy: tool.filteredBy }),
      ...(tool.taskSupport === undefined ? {} : { taskSupport: tool.taskSupport }),
    })),
    capabilities: server.capabilities,
    instructions: server.instructions,
    resources: server.offer.resources,
    resourceTemplates: server.offer.resourceTemplates,
    prompts: server.offer.prompts,
    lifecycle: server.lifecycle,
    sandbox: server.sandbox,
  };
}

export function jsonDiagnostic(diagnostic: ConfigDiagnostic): JsonDiagnostic {
  return {
    severity: diagnostic.severity,
    path: diagnostic.path,
    message: diagnostic.message,
    ...(diagnostic.source.file === undefined ? {} : { file: diagnostic.source.file }),
    ...(diagnostic.line === undefined ? {} : { line: diagnostic.line }),
    ...(diagnostic.column === undefined ? {} : { column: diagnostic.column }),
  };
}
