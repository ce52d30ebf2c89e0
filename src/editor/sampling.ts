// Sampling in the editor: a server asks for a completion from a language model, and nothing goes
// to a model without the user's consent. `mcpSwitchboard.sampling` sets allow, ask or deny per
// server (ask by default); "ask" shows what would be sent, and "Always Allow" is remembered per
// server until Reset Server Consent.
import * as vscode from 'vscode';
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/client';
import type { ConsentStore } from './consent';
import { samplingPolicy } from './settings';
import { errorMessage } from '../core/base/errorMessage';

const MAX_PREVIEW = 1500;

type Params = CreateMessageRequest['params'];

function contentText(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part: { type?: string; text?: string }) => (part?.type === 'text' ? (part.text ?? '') : `[${part?.type ?? 'content'}]`))
    .join(' ');
}

/** What would reach the model, for the consent dialog. */
export function samplingPreview(params: Params): string {
  const lines = [
    ...(params.systemPrompt ? [`System: ${params.systemPrompt}`] : []),
    ...params.messages.map((message) => `${message.role === 'assistant' ? 'Assistant' : 'User'}: ${contentText(message.content)}`),
  ];
  const text = lines.join('\n');
  return text.length > MAX_PREVIEW ? `${text.slice(0, MAX_PREVIEW)}…` : text;
}

class SamplingRefused extends Error {}

async function consentFor(server: string, params: Params, consent: ConsentStore): Promise<void> {
  const policy = samplingPolicy(server);
  if (policy === 'deny') throw new SamplingRefused(`sampling is denied for server "${server}" (mcpSwitchboard.sampling)`);
  if (policy === 'allow' || consent.samplingAnswer(server) === 'granted') return;
  const once = 'Allow Once';
  const always = `Always Allow "${server}"`;
  const deny = 'Deny';
  const choice = await vscode.window.showWarningMessage(
    `MCP server "${server}" asks to use a language model`,
    {
      modal: true,
      detail: `It would send:\n\n${samplingPreview(params)}\n\n(at most ${params.maxTokens} tokens back). Nothing is sent unless you allow it.`,
    },
    once,
    always,
    deny,
  );
  if (choice === always) await consent.recordSampling(server, 'granted');
  if (choice !== once && choice !== always) throw new SamplingRefused(`the user did not allow server "${server}" to use a language model`);
}

async function pickModel(params: Params): Promise<vscode.LanguageModelChat> {
  const models = await vscode.lm.selectChatModels();
  const hints = (params.modelPreferences?.hints ?? [])
    .map((hint) => hint.name?.toLowerCase())
    .filter((name): name is string => Boolean(name));
  const preferred = hints
    .map((hint) => models.find((model) => [model.id, model.name, model.family].some((field) => field.toLowerCase().includes(hint))))
    .find(Boolean);
  const model = preferred ?? models[0];
  if (!model) throw new SamplingRefused('no language model is available in the editor');
  return model;
}

function toMessages(params: Params): vscode.LanguageModelChatMessage[] {
  const messages = params.messages.map((message) =>
    message.role === 'assistant'
      ? vscode.LanguageModelChatMessage.Assistant(contentText(message.content))
      : vscode.LanguageModelChatMessage.User(contentText(message.content)),
  );
  // The language model API has no system role: the instructions go first, as the user's.
  return params.systemPrompt ? [vscode.LanguageModelChatMessage.User(params.systemPrompt), ...messages] : messages;
}

/** Answers a server's sampling request with a model of the editor, after consent. */
export async function answerSampling(server: string, params: Params, consent: ConsentStore): Promise<CreateMessageResult> {
  try {
    await consentFor(server, params, consent);
    const model = await pickModel(params);
    const cancel = new vscode.CancellationTokenSource();
    try {
      const response = await model.sendRequest(
        toMessages(params),
        { justification: `MCP server "${server}" asked for a completion (sampling).` },
        cancel.token,
      );
      let text = '';
      for await (const chunk of response.text) text += chunk;
      return { role: 'assistant', content: { type: 'text', text }, model: model.id, stopReason: 'endTurn' };
    } finally {
      cancel.dispose();
    }
  } catch (error) {
    const reason = errorMessage(error);
    throw new Error(`Switchboard declined the sampling request of server "${server}": ${reason}`);
  }
}
