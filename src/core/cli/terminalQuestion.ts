// A yes-or-no question on the terminal, for what the CLI must not do without the user's word
// (running a repository's servers, replacing an entry). Without a terminal there is nobody to ask:
// callers get undefined and refuse, saying which flag says yes instead.
import readline from 'node:readline';
import type { Confirm } from '../consent';

export type { Confirm } from '../consent';

export function terminalConfirm(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Confirm | undefined {
  if (!input.isTTY) return undefined;
  return (question) =>
    new Promise((resolve) => {
      const prompt = readline.createInterface({ input, output, terminal: true });
      let answered = false;
      prompt.once('close', () => {
        if (!answered) resolve(false);
      });
      prompt.question(`${question} [y/N] `, (answer) => {
        answered = true;
        prompt.close();
        resolve(/^y(es)?$/i.test(answer.trim()));
      });
    });
}
