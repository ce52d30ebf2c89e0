// The default, human output: one aligned row per server, then what explains it (its configuration
// problems, the tools the catalog hides and why, the last lines a failed server wrote to stderr),
// then problems owned by no server.
import { displayText } from '../../base/displayText';
import type { MachineHostReport } from '../../sharing';
import { MAX_EXPOSED_SETTING } from '../../catalog';
import { describeSandboxRules, type ConfigDiagnostic } from '../../config';
import { isFailing, type DoctorReport, type ServerReport, type ToolReport } from './report';
import { formatTable, type Column } from './textTable';

const COLUMNS: readonly Column[] = [
  { header: 'SERVER', maxWidth: 40 },
  { header: 'STATE' },
  { header: 'TOOLS', align: 'right' },
  { header: 'RESOURCES', align: 'right' },
  { header: 'PROMPTS', align: 'right' },
  { header: 'CONNECT', align: 'right' },
  { header: 'PROTOCOL' },
  { header: 'ERROR' },
];

const DETAIL_INDENT = '    ';
/** Hidden tools named per server; a workspace that hides hundreds wants --json, not a wall of lines. */
const MAX_HIDDEN_LINES = 10;

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
      lines.push(...details(server, report.maxExposed));
    });
    lines.push('', summary(report));
  }
  if (report.diagnostics.length > 0) {
    lines.push('', 'Configuration:');
    lines.push(...report.diagnostics.map((diagnostic) => `  ${describeDiagnostic(diagnostic, true)}`));
  }
  if (report.catalogWarnings.length > 0) {
    lines.push('', 'Catalog:');
    lines.push(...report.catalogWarnings.map((message) => `  ${'warning'.padEnd(8)} ${message}`));
  }
  if (report.machineHost) lines.push('', ...machineHostLines(report.machineHost));
  return `${lines.join('\n')}\n`;
}

/** The machine host: who it is, and each server it runs with its clients (what it runs is outside text). */
function machineHostLines(host: MachineHostReport): string[] {
  const where = displayText(host.folder, 200);
  switch (host.kind) {
    case 'none':
      return [`Machine host: none runs (${where}); the first window or agent that shares a server starts it.`];
    case 'unusable':
      return [`Machine host: not usable (${where}): ${displayText(host.why, 400)}`];
    case 'running': {
      const { info } = host;
      const clients = (n: number) => `${n} client${n === 1 ? '' : 's'}`;
      return [
        `Machine host: pid ${info.pid}, version ${displayText(info.version, 40)}, ${clients(info.clients)}, ${info.busy} request(s) in flight (${where})`,
        ...(host.servers.length === 0
          ? ['  no server shared']
          : host.servers.map(
              (server) =>
                `  ${displayText(server.state, 20).padEnd(12)} ${clients(server.clients).padEnd(10)} ${displayText(server.command, 160)}`,
            )),
      ];
    }
  }
}

/** Resources, plus templates when there are any: `3+1`. */
function resourceCount(server: ServerReport): string {
  const templates = server.offer.resourceTemplates.length;
  return `${server.offer.resources.length}${templates > 0 ? `+${templates}` : ''}`;
}

function row(server: ServerReport): string[] {
  const running = server.state === 'running';
  return [
    server.name,
    // The doctor starts lazy servers to check them; the row says they are not started with the window.
    server.lifecycle?.start === 'lazy' ? `${server.state} (lazy)` : server.state,
    running ? `${exposedCount(server.tools)}/${server.tools.length}` : '-',
    running || server.offer.resources.length > 0 ? resourceCount(server) : '-',
    running || server.offer.prompts.length > 0 ? String(server.offer.prompts.length) : '-',
    server.connectMs === null ? '-' : `${server.connectMs} ms`,
    server.protocol === null ? '-' : `${server.protocol.version} (${server.protocol.era})`,
    // The row stays one line: the first; the rest (the folders searched) is under the row.
    (server.error ?? '').split('\n', 1)[0] ?? '',
  ];
}

function exposedCount(tools: readonly ToolReport[]): number {
  return tools.filter((tool) => tool.exposed).length;
}

function details(server: ServerReport, maxExposed: number): string[] {
  const lines = server.diagnostics.map((diagnostic) => DETAIL_INDENT + describeDiagnostic(diagnostic, false));
  const more = (server.error ?? '')
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '');
  if (more.length > 0) lines.push(`${DETAIL_INDENT}error:`, ...more.map((line) => `${DETAIL_INDENT}  ${line}`));
  if (server.sandbox) lines.push(`${DETAIL_INDENT}${'sandbox'.padEnd(8)} ${describeSandboxRules(server.sandbox.rules)}`);
  lines.push(...hiddenTools(server.tools, maxExposed).map((line) => `${DETAIL_INDENT}${'hidden'.padEnd(8)} ${line}`));
  lines.push(...taskTools(server.tools).map((line) => `${DETAIL_INDENT}${'tasks'.padEnd(8)} ${line}`));
  if (server.offer.skills.length > 0)
    lines.push(
      `${DETAIL_INDENT}${'skills'.padEnd(8)} ${server.offer.skills
        .map(
          (skill) =>
            `${displayText(skill.name, 80)} (${skill.files === 'dynamic' ? 'generated' : `${skill.files} file${skill.files === 1 ? '' : 's'}`})`,
        )
        .join(', ')}`,
    );
  lines.push(...server.catalogWarnings.map((message) => `${DETAIL_INDENT}${'warning'.padEnd(8)} ${message}`));
  if (isFailing(server) && server.stderrTail.length > 0) {
    lines.push(`${DETAIL_INDENT}stderr (last ${server.stderrTail.length} line${server.stderrTail.length === 1 ? '' : 's'}):`);
    lines.push(...server.stderrTail.map((line) => `${DETAIL_INDENT}  ${line}`));
  }
  return lines;
}

/** The tools that run as tasks, in one line: a call of one takes as long as its task. */
function taskTools(tools: readonly ToolReport[]): string[] {
  const required = tools.filter((tool) => tool.taskSupport === 'required').map((tool) => tool.name);
  if (required.length === 0) return [];
  const shown =
    required.slice(0, MAX_HIDDEN_LINES).join(', ') +
    (required.length > MAX_HIDDEN_LINES ? `, ... and ${required.length - MAX_HIDDEN_LINES} more` : '');
  return [
    `${shown}: ${required.length === 1 ? 'requires a task; a call runs it' : 'require a task; a call runs one'} and waits for its result`,
  ];
}

/** One line per hidden tool, except budget cuts, which share one line (they share one reason). */
function hiddenTools(tools: readonly ToolReport[], maxExposed: number): string[] {
  const hidden = tools.filter((tool) => !tool.exposed);
  const overBudget = hidden.filter((tool) => tool.filterKind === 'budget');
  const named = hidden.filter((tool) => tool.filterKind !== 'budget');
  const lines = named.slice(0, MAX_HIDDEN_LINES).map((tool) => `${tool.name}: ${tool.filteredBy ?? 'not exposed'}`);
  if (named.length > MAX_HIDDEN_LINES) lines.push(`... and ${named.length - MAX_HIDDEN_LINES} more (--json lists every tool)`);
  if (overBudget.length > 0)
    lines.push(`${overBudget.length} tool${overBudget.length === 1 ? '' : 's'} beyond ${MAX_EXPOSED_SETTING} (${maxExposed})`);
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
  const tools = report.servers.filter((server) => server.state === 'running').flatMap((server) => server.tools);
  const exposure = tools.length > 0 ? ` ${exposedCount(tools)} of ${tools.length} tools exposed to chat and the gateway.` : '';
  return `${parts.join('; ')}.${exposure}`;
}
