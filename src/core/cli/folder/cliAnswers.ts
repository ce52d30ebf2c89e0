// How the terminal apps (`serve`, `doctor`) answer what servers ask when no client of the gateway
// can: the folder is the one root; elicitation and sampling are declined, saying why, since
// nobody is there to fill in a form or allow a model.
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { HostAnswers } from '../../connection';

export function cliAnswers(folder: string, app: 'serve' | 'doctor'): HostAnswers {
  return {
    listRoots: async () => ({ roots: [{ uri: pathToFileURL(folder).href, name: path.basename(folder) || folder }] }),
    refusal: (kind) =>
      kind === 'elicitation'
        ? `\`mcp-switchboard ${app}\` has nobody to ask; a client of the gateway that supports elicitation gets the form instead (in the editor, Switchboard shows it)`
        : `\`mcp-switchboard ${app}\` has no model to ask and sends nothing to one without consent; a client of the gateway that supports sampling is asked instead (in the editor, Switchboard asks for consent)`,
  };
}
