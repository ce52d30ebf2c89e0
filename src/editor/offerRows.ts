// The rows of the Servers tree for what a server offers besides tools: a group per kind (Tools,
// Resources, Prompts, Skills, with counts), and a row per resource, template, prompt and skill. A
// resource row opens the resource read-only; a skill row says where the skill is installed.
import * as vscode from 'vscode';
import type { OfferedServer } from '../core/catalog';
import type { Skill } from '../core/connection';
import { allowedToolsOf, type SkillPlace } from '../core/skills';
import { COMMANDS } from './commandIds';

export type OfferGroup = 'tools' | 'resources' | 'prompts' | 'skills';

/** Where a server's skill is installed, and whether the server now lists another manifest of it. */
export interface SkillStanding {
  readonly places: readonly { readonly place: SkillPlace; readonly folder: string }[];
  readonly changed: boolean;
}

export type SkillStandingOf = (server: string, skill: Skill) => SkillStanding;

export type OfferNode =
  | { readonly kind: 'group'; readonly server: string; readonly group: OfferGroup; readonly count: number; readonly offered?: number }
  | {
      readonly kind: 'resource';
      readonly server: string;
      readonly uri: string;
      readonly name: string;
      readonly title?: string;
      readonly description?: string;
      readonly mimeType?: string;
      readonly template: boolean;
    }
  | {
      readonly kind: 'prompt';
      readonly server: string;
      readonly name: string;
      readonly title?: string;
      readonly description?: string;
      readonly arguments: readonly string[];
    }
  | {
      readonly kind: 'skill';
      readonly server: string;
      readonly skill: Skill;
      readonly standing: SkillStanding;
    };

const GROUP_LABELS: Record<OfferGroup, string> = { tools: 'Tools', resources: 'Resources', prompts: 'Prompts', skills: 'Skills' };
const GROUP_ICONS: Record<OfferGroup, string> = { tools: 'tools', resources: 'files', prompts: 'comment-discussion', skills: 'book' };

/**
 * The groups under a server. A server that offers only tools shows them directly, as before:
 * the groups help only when there is more than one kind. `offeredTools`: how many of the tools chat
 * gets, when not all (the group then says `1 of 17 offered`).
 */
export function offerGroups(
  server: string,
  toolCount: number,
  offer: OfferedServer | undefined,
  offeredTools = toolCount,
): OfferNode[] | undefined {
  const resources = (offer?.resources.length ?? 0) + (offer?.resourceTemplates.length ?? 0);
  const prompts = offer?.prompts.length ?? 0;
  const skills = offer?.skills.length ?? 0;
  if (resources === 0 && prompts === 0 && skills === 0) return undefined;
  const groups: OfferNode[] = [
    { kind: 'group', server, group: 'tools', count: toolCount, ...(offeredTools < toolCount ? { offered: offeredTools } : {}) },
  ];
  if (resources > 0) groups.push({ kind: 'group', server, group: 'resources', count: resources });
  if (prompts > 0) groups.push({ kind: 'group', server, group: 'prompts', count: prompts });
  if (skills > 0) groups.push({ kind: 'group', server, group: 'skills', count: skills });
  return groups;
}

export function offerChildren(
  node: Extract<OfferNode, { kind: 'group' }>,
  offer: OfferedServer | undefined,
  standingOf: SkillStandingOf = () => ({ places: [], changed: false }),
): OfferNode[] {
  const server = node.server;
  if (!offer) return [];
  if (node.group === 'skills')
    return offer.skills.map((skill) => ({ kind: 'skill' as const, server, skill, standing: standingOf(server, skill) }));
  if (node.group === 'resources') {
    return [
      ...offer.resources.map((resource) => ({
        kind: 'resource' as const,
        server,
        uri: resource.uri,
        name: resource.name,
        title: resource.title,
        description: resource.description,
        mimeType: resource.mimeType,
        template: false,
      })),
      ...offer.resourceTemplates.map((template) => ({
        kind: 'resource' as const,
        server,
        uri: template.uriTemplate,
        name: template.name,
        title: template.title,
        description: template.description,
        mimeType: template.mimeType,
        template: true,
      })),
    ];
  }
  if (node.group === 'prompts') {
    return offer.prompts.map((prompt) => ({
      kind: 'prompt' as const,
      server,
      name: prompt.name,
      title: prompt.title,
      description: prompt.description,
      arguments: (prompt.arguments ?? []).map((argument) => `${argument.name}${argument.required ? '' : '?'}`),
    }));
  }
  return [];
}

function skillItem(node: Extract<OfferNode, { kind: 'skill' }>): vscode.TreeItem {
  const { skill, standing, server } = node;
  const name = String(skill.frontmatter.name);
  const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
  item.id = `skill/${server}/${skill.uri}`;
  const dynamic = !Array.isArray(skill.resources);
  const installed = standing.places.length > 0;
  // Short, so that the name stays readable in a narrow sidebar; where it is installed is in the tooltip.
  item.description = standing.changed
    ? 'changed'
    : installed
      ? standing.places.length > 1
        ? `installed ×${standing.places.length}`
        : 'installed'
      : dynamic
        ? 'generated: not installable'
        : '';
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${name.replace(/[\\`*_[\]<>]/g, '')}** · skill of \`${server.replace(/`/g, "'")}\`\n\n`);
  tooltip.appendText(`${String(skill.frontmatter.description)}\n\n`);
  tooltip.appendMarkdown(`\`${skill.uri.replace(/`/g, "'")}\``);
  if (Array.isArray(skill.resources)) {
    const files = skill.resources as readonly { size: number }[];
    tooltip.appendMarkdown(
      ` · ${files.length} file${files.length === 1 ? '' : 's'}, ${files.reduce((sum, file) => sum + file.size, 0)} bytes`,
    );
  }
  const tools = allowedToolsOf(skill);
  if (tools) {
    tooltip.appendMarkdown('\n\n$(warning) asks to use tools without asking (allowed-tools): ');
    tooltip.appendText(tools);
  }
  tooltip.supportThemeIcons = true;
  for (const { folder } of standing.places) {
    tooltip.appendMarkdown('\n\nInstalled in ');
    tooltip.appendText(folder);
  }
  if (standing.changed)
    tooltip.appendMarkdown('\n\nThe server lists another version of it: **Update Skill** shows what changed and asks again.');
  item.tooltip = tooltip;
  item.iconPath = new vscode.ThemeIcon(
    standing.changed ? 'warning' : installed ? 'book' : 'cloud-download',
    standing.changed
      ? new vscode.ThemeColor('problemsWarningIcon.foreground')
      : installed
        ? new vscode.ThemeColor('testing.iconPassed')
        : undefined,
  );
  item.contextValue = [
    'skill',
    ...(installed ? ['skill-installed'] : []),
    ...(standing.changed ? ['skill-changed'] : []),
    ...(!dynamic ? ['skill-installable'] : []),
  ].join(' ');
  return item;
}

export function offerItem(node: OfferNode): vscode.TreeItem {
  if (node.kind === 'skill') return skillItem(node);
  if (node.kind === 'group') {
    const item = new vscode.TreeItem(
      GROUP_LABELS[node.group],
      node.count > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `group/${node.server}/${node.group}`;
    item.description = node.offered === undefined ? String(node.count) : `${node.offered} of ${node.count} offered`;
    item.iconPath = new vscode.ThemeIcon(GROUP_ICONS[node.group]);
    item.contextValue = `group group-${node.group}`;
    return item;
  }
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${node.title ?? node.name}**\n\n`);
  if (node.description) tooltip.appendText(`${node.description}\n\n`);
  if (node.kind === 'prompt') {
    const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
    item.id = `prompt/${node.server}/${node.name}`;
    item.description = node.arguments.join(', ');
    tooltip.appendMarkdown(
      `In chat: \`/mcp.${node.server}.${node.name}\` (through the editor's MCP client). Click to put it in the chat input.`,
    );
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon('comment');
    item.contextValue = 'prompt';
    // The prompt is the editor's slash command: clicking puts it in chat, where Enter asks for its
    // arguments (with completions) and inserts what the server returns.
    item.command = {
      command: 'workbench.action.chat.open',
      title: 'Use in Chat',
      arguments: [{ query: `/mcp.${node.server}.${node.name} `, isPartialQuery: true }],
    };
    return item;
  }
  const item = new vscode.TreeItem(node.title ?? node.name, vscode.TreeItemCollapsibleState.None);
  item.id = `resource/${node.server}/${node.uri}`;
  item.description = node.uri;
  tooltip.appendMarkdown(
    `\`${node.uri.replace(/`/g, "'")}\`${node.mimeType ? ` · ${node.mimeType}` : ''}${node.template ? ' · template' : ''}`,
  );
  item.tooltip = tooltip;
  item.iconPath = new vscode.ThemeIcon(node.template ? 'symbol-variable' : node.mimeType?.startsWith('image/') ? 'file-media' : 'file');
  item.contextValue = node.template ? 'resourceTemplate' : 'resource';
  if (!node.template) item.command = { command: COMMANDS.openResource, title: 'Open Resource', arguments: [node.server, node.uri] };
  return item;
}
