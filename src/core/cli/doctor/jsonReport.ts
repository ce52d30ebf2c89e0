// `--json`: a stable, documented shape for scripts. Keys are listed explicitly (not spread from the
// report) so that a field added to the report for the table does not leak into the contract.
import type { MachineHostReport } from '../../sharing';
import type { ConfigDiagnostic } from '../../config';
import type { DoctorReport, OfferReport, ServerReport, ToolReport } from './report';

// The shapes are the report's own fields, picked (declared once, in report.ts): only the mapping
// below decides what goes out.
/** A configuration diagnostic, its source flattened to the file it names. */
export interface JsonDiagnostic extends Pick<ConfigDiagnostic, 'severity' | 'path' | 'message' | 'line' | 'column'> {
  readonly file?: string;
}

export type JsonTool = Pick<ToolReport, 'name' | 'title' | 'qualifiedName' | 'readOnly' | 'exposed' | 'filteredBy' | 'taskSupport'>;

export type JsonServer = Pick<
  ServerReport,
  'name' | 'source' | 'definedBy' | 'state' | 'connectMs' | 'protocol' | 'error' | 'capabilities' | 'instructions' | 'lifecycle' | 'sandbox'
> &
  Pick<OfferReport, 'resources' | 'resourceTemplates' | 'prompts' | 'skills'> & {
    readonly diagnostics: readonly JsonDiagnostic[];
    readonly tools: readonly JsonTool[];
  };

export interface JsonReport {
  readonly servers: readonly JsonServer[];
  /** This user's machine host (the servers shared by every window and agent), when it was asked. */
  readonly machineHost?: MachineHostReport;
}

export function toJsonReport(report: DoctorReport): JsonReport {
  return { servers: report.servers.map(jsonServer), machineHost: report.machineHost };
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
    skills: server.offer.skills,
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
