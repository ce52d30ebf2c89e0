// The default, human output: one aligned row per server, then what explains each failure (its
// configuration problems and the last lines it wrote to stderr), then problems owned by no server.
import type { ConfigDiagnostic } from '../config';
import { isFailing, type DoctorReport, type ServerReport } from './report';
import { formatTable, type Column } from './textTable';

const COLUMNS: readonly Column[] = [
  { header: 'SERVER' },
  { header: 'STATE' },
  { header: 'TOOLS', align: 'right' },
  { header: 'CONNECT', align: 'right' },
  { header: 'ERROR' },
];

const DETAIL_INDENT = '    ';

export function formatTableReport(report: DoctorReport): string {
  const lines: string[] = [];
  if (report.servers.length === 0) {
    lines.push(
      report.settingsFound
        ? `No MCP servers are configured in ${report.settingsFile}.`
        : `No MCP servers are configured: ${report.settingsFile} does not exist.`,
    );
  } else {
    const [header = '', ...rows] = formatTable(COLUMNS, report.servers.map(row));
    lines.push(header);
    report.servers.forEach((server, index) => {
      lines.push(rows[index] ?? '');
      lines.push(...details(server));
    });
    lines.push('', summary(report));
  }
  if (report.diagnostics.length > 0) {
    lines.push('', 'Configuration:');
    lines.push(...report.diagnostics.map((diagnostic) => `  ${describeDiagnostic(diagnostic, true)}`));
  }
  return `${lines.join('\n')}\n`;
}

function row(server: ServerReport): string[] {
  const running = server.state === 'running';
  return [
    server.name,
    server.state,
    running ? String(server.tools.length) : '-',
    server.connectMs === null ? '-' : `${server.connectMs} ms`,
    // Some messages carry a server's multi-line output; the row must stay one line.
    (server.error ?? '').replace(/\s*\n\s*/g, ' '),
  ];
}

function details(server: ServerReport): string[] {
  const lines = server.diagnostics.map((diagnostic) => DETAIL_INDENT + describeDiagnostic(diagnostic, false));
  if (isFailing(server) && server.stderrTail.length > 0) {
    lines.push(`${DETAIL_INDENT}stderr (last ${server.stderrTail.length} line${server.stderrTail.length === 1 ? '' : 's'}):`);
    lines.push(...server.stderrTail.map((line) => `${DETAIL_INDENT}  ${line}`));
  }
  return lines;
}

/** `error    servers.x.command: must not be empty`, with the file when the row does not imply it. */
export function describeDiagnostic(diagnostic: ConfigDiagnostic, withFile: boolean): string {
  const where = diagnostic.path === '' ? '' : `${diagnostic.path}: `;
  const file = diagnostic.source.file;
  const position = diagnostic.line === undefined ? '' : `:${diagnostic.line}:${diagnostic.column ?? 1}`;
  const suffix = file !== undefined && (withFile || position !== '') ? ` (${file}${position})` : '';
  return `${diagnostic.severity.padEnd(8)} ${where}${diagnostic.message}${suffix}`;
}

function summary(report: DoctorReport): string {
  const enabled = report.servers.filter((server) => server.state !== 'disabled');
  const running = enabled.filter((server) => server.state === 'running').length;
  const disabled = report.servers.length - enabled.length;
  const parts = [`${running} of ${enabled.length} enabled server${enabled.length === 1 ? '' : 's'} running`];
  if (disabled > 0) parts.push(`${disabled} disabled`);
  if (report.outcome === 'timeout') parts.push(`stopped waiting after ${report.timeoutMs} ms`);
  return `${parts.join('; ')}.`;
}
