// The rows of the Servers tree for the tasks a server runs for callers that made plain calls
// (core connection/tasks/taskCalls.ts): one per task, above the server's tools, labelled with its
// latest status message, its tool beside it, and a Cancel Task button.
import * as vscode from 'vscode';
import type { RunningTask } from '../core/connection';

export interface TaskNode {
  readonly kind: 'task';
  readonly server: string;
  readonly task: RunningTask;
}

export function taskNodes(server: string, tasks: readonly RunningTask[]): TaskNode[] {
  return tasks.map((task) => ({ kind: 'task', server, task }));
}

export function taskItem(node: TaskNode, now: number): vscode.TreeItem {
  const { task } = node;
  const waiting = task.status === 'input_required';
  // The status is what a person watches, so it is the label; the tool is the description.
  const status = task.message ?? (waiting ? 'waiting for input' : task.status);
  const item = new vscode.TreeItem(status, vscode.TreeItemCollapsibleState.None);
  item.id = `task/${node.server}/${task.id}`;
  item.description = task.tool;
  item.iconPath = new vscode.ThemeIcon(waiting ? 'question' : 'loading~spin');
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(
    `**Task of \`${task.tool.replace(/`/g, "'")}\`** — ${task.status}, for ${Math.max(0, Math.round((now - task.since) / 1000))} s\n\n`,
  );
  if (task.message) tooltip.appendText(`${task.message}\n\n`);
  tooltip.appendMarkdown(
    `Task id \`${task.id.replace(/`/g, "'")}\`. A chat or gateway call is waiting for its result; **Cancel Task** ends both.`,
  );
  item.tooltip = tooltip;
  item.contextValue = 'task';
  item.accessibilityInformation = { label: `task of ${task.tool}, ${task.status}${task.message ? `, ${task.message}` : ''}` };
  return item;
}
