// The form Switchboard shows when a server asks for input (elicitation) and no client of the
// gateway takes the request: one quick input per field, with the server's name in every title.
// Decline answers "decline"; Escape at any point answers "cancel". URL mode names the domain and
// opens nothing until the user says so. A question withdrawn (its task ended) closes the form.
import * as vscode from 'vscode';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { elicitFields, parseFieldText, urlDomain, type ElicitField } from '../core/presentation';

type Answer = string | number | boolean | string[];
type Outcome = { readonly value: Answer } | 'skip' | 'cancel';
type Item = vscode.QuickPickItem & { readonly outcome: Outcome };
const SKIP: Item = { label: '$(dash) Leave empty', outcome: 'skip' };

export async function askElicitation(server: string, params: ElicitRequest['params'], signal?: AbortSignal): Promise<ElicitResult> {
  if ((params as { mode?: string }).mode === 'url') return askToOpen(server, params as { message: string; url: string });
  const withdrawn = new vscode.CancellationTokenSource();
  const withdraw = () => withdrawn.cancel();
  if (signal?.aborted) return { action: 'cancel' };
  signal?.addEventListener('abort', withdraw, { once: true });
  try {
    return await askForm(server, params, withdrawn.token);
  } finally {
    signal?.removeEventListener('abort', withdraw);
    withdrawn.dispose();
  }
}

async function askForm(server: string, params: ElicitRequest['params'], token: vscode.CancellationToken): Promise<ElicitResult> {
  const parsed = elicitFields((params as { requestedSchema?: unknown }).requestedSchema);
  if ('problem' in parsed) {
    void vscode.window.showWarningMessage(
      `MCP Switchboard: server "${server}" asked for a form that cannot be shown (${parsed.problem}); it was declined.`,
    );
    return { action: 'decline' };
  }
  const fill = `Fill In (${parsed.fields.length} field${parsed.fields.length === 1 ? '' : 's'})`;
  const decline = 'Decline';
  const start = await vscode.window.showQuickPick(
    [{ label: fill }, { label: decline }],
    { title: `MCP server "${server}" asks`, placeHolder: params.message.slice(0, 500), ignoreFocusOut: true },
    token,
  );
  if (!start) return { action: 'cancel' };
  if (start.label === decline) return { action: 'decline' };
  const content: Record<string, Answer> = {};
  for (const [index, field] of parsed.fields.entries()) {
    const outcome = await askField(server, field, `${index + 1}/${parsed.fields.length}`, token);
    if (outcome === 'cancel') return { action: 'cancel' };
    if (outcome !== 'skip') content[field.key] = outcome.value;
  }
  return { action: 'accept', content };
}

function fieldTitle(server: string, field: ElicitField, step: string): string {
  return `"${server}" asks (${step}): ${field.title}${field.required ? '' : ' (optional)'}`;
}

async function pick(items: readonly Item[], title: string, field: ElicitField, token: vscode.CancellationToken): Promise<Outcome> {
  const picked = await vscode.window.showQuickPick(
    [...items, ...(field.required ? [] : [SKIP])],
    { title, placeHolder: field.description, ignoreFocusOut: true },
    token,
  );
  return picked ? picked.outcome : 'cancel';
}

async function askField(server: string, field: ElicitField, step: string, token: vscode.CancellationToken): Promise<Outcome> {
  const title = fieldTitle(server, field, step);
  if (field.kind === 'boolean') {
    const items: Item[] = [
      { label: 'Yes', outcome: { value: true } },
      { label: 'No', outcome: { value: false } },
    ];
    if (field.default === false) items.reverse();
    return pick(items, title, field, token);
  }
  if (field.kind === 'choice' || field.kind === 'choices') return askChoice(field, title, token);
  const typed = await vscode.window.showInputBox(
    {
      title,
      prompt: [field.description, field.required ? undefined : 'Leave empty to skip.'].filter(Boolean).join(' '),
      value: field.default === undefined ? '' : String(field.default),
      ignoreFocusOut: true,
      validateInput: (text) => {
        if (text === '' && !field.required) return undefined;
        const checked = parseFieldText(field, text);
        return 'problem' in checked ? checked.problem : undefined;
      },
    },
    token,
  );
  if (typed === undefined) return 'cancel';
  if (typed === '' && !field.required) return 'skip';
  const checked = parseFieldText(field, typed);
  return 'problem' in checked ? 'cancel' : { value: checked.value };
}

async function askChoice(field: ElicitField, title: string, token: vscode.CancellationToken): Promise<Outcome> {
  const defaults = new Set(Array.isArray(field.default) ? field.default : typeof field.default === 'string' ? [field.default] : []);
  const items = (field.options ?? []).map((option) => ({
    label: option.label,
    ...(option.label === option.value ? {} : { description: option.value }),
    picked: defaults.has(option.value),
    outcome: { value: option.value },
  }));
  if (field.kind === 'choice')
    return pick(
      [...items].sort((a, b) => Number(b.picked) - Number(a.picked)),
      title,
      field,
      token,
    );
  const picked = await vscode.window.showQuickPick(
    items,
    { title, placeHolder: field.description, canPickMany: true, ignoreFocusOut: true },
    token,
  );
  if (!picked) return 'cancel';
  if (picked.length === 0 && !field.required) return 'skip';
  return { value: picked.map((item) => item.outcome.value) };
}

async function askToOpen(server: string, params: { message: string; url: string }): Promise<ElicitResult> {
  const domain = urlDomain(params.url);
  if (!domain) {
    void vscode.window.showWarningMessage(
      `MCP Switchboard: server "${server}" asked to open something that is not a web page; it was declined.`,
    );
    return { action: 'decline' };
  }
  const open = `Open ${domain}`;
  const decline = 'Decline';
  const choice = await vscode.window.showWarningMessage(
    `MCP server "${server}" asks you to open a page on ${domain}`,
    { modal: true, detail: `${params.message.slice(0, 1000)}\n\n${params.url.slice(0, 2000)}\n\nNothing is opened unless you choose to.` },
    open,
    decline,
  );
  if (choice === decline) return { action: 'decline' };
  if (choice !== open) return { action: 'cancel' };
  await vscode.env.openExternal(vscode.Uri.parse(params.url));
  return { action: 'accept' };
}
