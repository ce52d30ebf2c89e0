// "Show Tool Catalog": what chat sees, what it does not, and why — as a markdown document.
import { describeFilterRule, type CatalogSnapshot } from '../catalog';
import { editorToolName, editorToolPrefixes } from './chatNames';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function catalogReport(snapshot: CatalogSnapshot): string {
  const exposed = snapshot.servers.reduce((sum, server) => sum + server.tools.filter((tool) => tool.exposed).length, 0);
  const total = snapshot.servers.reduce((sum, server) => sum + server.tools.length, 0);
  const lines = [
    '# MCP Switchboard tool catalog',
    '',
    `${exposed} of ${total} tools are exposed to chat (budget: ${snapshot.maxExposed}, eligible after filters: ${snapshot.eligible}).`,
    '',
  ];
  if (snapshot.warnings.length > 0) {
    lines.push('## Warnings', '');
    for (const warning of snapshot.warnings) lines.push(`- ${warning.server ? `**${warning.server}**: ` : ''}${warning.message}`);
    lines.push('');
  }
  const prefixes = editorToolPrefixes(snapshot.servers.map((server) => server.name));
  for (const server of snapshot.servers) {
    const prefix = prefixes.get(server.name) ?? '';
    const shown = server.tools.filter((tool) => tool.exposed).length;
    const origin = server.fromCache ? ', tools from cache' : '';
    lines.push(`## ${server.name} (${server.state}${origin}): ${shown}/${server.tools.length} exposed`, '');
    if (server.tools.length === 0) {
      lines.push('No tools known yet.', '');
      continue;
    }
    // Chat name: what the editor's chat calls it (exposed tools only); #mcpCall name: the name the
    // dispatcher tool and the aggregated /mcp endpoint take.
    lines.push('| Tool | Chat name | #mcpCall name | Read-only | Exposed | Why not |', '|---|---|---|---|---|---|');
    for (const tool of server.tools) {
      const why = tool.filteredBy ? describeFilterRule(tool.filteredBy, server.name) : '';
      const chat = tool.exposed ? `\`${editorToolName(prefix, tool.name)}\`` : '–';
      lines.push(
        `| ${cell(tool.name)} | ${chat} | \`${tool.qualifiedName}\` | ${tool.readOnly ? 'yes' : ''} | ${tool.exposed ? 'yes' : 'no'} | ${cell(why)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}
