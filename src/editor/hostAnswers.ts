// How the editor answers what servers ask when no client of the gateway takes the request: the
// workspace folders as roots, Switchboard's own elicitation form, and sampling after consent.
import * as vscode from 'vscode';
import type { HostAnswers } from '../core/connection';
import type { ConsentStore } from './consent';
import { askElicitation } from './elicitationForm';
import { answerSampling } from './sampling';

export function editorAnswers(consent: ConsentStore): HostAnswers {
  return {
    listRoots: async () => ({
      roots: (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ uri: folder.uri.toString(), name: folder.name })),
    }),
    elicit: (server, params, signal) => askElicitation(server, params, signal),
    sample: (server, params) => answerSampling(server, params, consent),
  };
}
