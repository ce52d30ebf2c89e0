// A language model for the UI tests: it answers "fake model says: <the last user message>".
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS extension: the editor loads it as is, without a build.
const vscode = require('vscode');

const MODEL = {
  id: 'switchboard-fake-model',
  name: 'Switchboard Fake Model',
  family: 'fake',
  version: '1.0.0',
  maxInputTokens: 100000,
  maxOutputTokens: 1000,
  capabilities: {},
};

function textOf(message) {
  return message.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('switchboard-test', {
      provideLanguageModelChatInformation: async () => [MODEL],
      provideLanguageModelChatResponse: async (_model, messages, _options, progress) => {
        const last = messages[messages.length - 1];
        progress.report(new vscode.LanguageModelTextPart(`fake model says: ${last ? textOf(last) : ''}`));
      },
      provideTokenCount: async (_model, text) => (typeof text === 'string' ? text.length : 1),
    }),
  );
};
