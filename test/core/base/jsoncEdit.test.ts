// Edits of JSON with comments that a person would make: only the edited value's characters change,
// laid out like its neighbours, and an edit undone gives back the very bytes it started from.
import assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import { applyJsonEdit, type JsonEdit } from '../../../src/core/base/jsoncEdit';

const SETTINGS = `// Workspace settings. Keep the comments!
{
  "editor.tabSize": 4, // unrelated, and stays
  /* Our MCP servers: */
  "mcpSwitchboard.servers": {
    // The one we use every day.
    "daily": {
      "command": "node",
      "args": [ "server.mjs",   "--name", "daily" ], // odd spacing on purpose
    },
    "spare": { "command": "node", "args": ["server.mjs", "--name", "spare"] }, // to be removed
    // Last one: a comment after it.
    "last": { "command": "node", "args": ["server.mjs"] }
  },
  "mcpSwitchboard.tools.disabled": [
    // reviewed by the team
    "daily/zzz_not_a_tool"
  ],
  "files.trimTrailingWhitespace": true,
}
`;

const STRICT = `{
\t"mcpSwitchboard.servers": {
\t\t"a": {
\t\t\t"command": "x"
\t\t}
\t}
}
`;

const value = (text: string) => parse(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
const edit = (text: string, ...edits: JsonEdit[]) => edits.reduce(applyJsonEdit, text);
const S = 'mcpSwitchboard.servers';

describe('jsoncEdit: in place, like a person', () => {
  it('adds a property after the last one, on a line of its own, keeping the trailing comma style; removing it gives the bytes back', () => {
    const added = edit(SETTINGS, { location: [S, 'daily', 'sandboxEnabled'], value: true });
    assert.equal(
      added,
      SETTINGS.replace('], // odd spacing on purpose\n    },', '], // odd spacing on purpose\n      "sandboxEnabled": true,\n    },'),
    );
    assert.equal(edit(added, { location: [S, 'daily', 'sandboxEnabled'], value: undefined }), SETTINGS);
    // Without trailing commas (and with tabs): the comma goes on the line before, and comes off again.
    const strict = edit(STRICT, { location: [S, 'a', 'enabled'], value: false });
    assert.equal(strict, STRICT.replace('"command": "x"\n', '"command": "x",\n\t\t\t"enabled": false\n'));
    assert.equal(edit(strict, { location: [S, 'a', 'enabled'], value: undefined }), STRICT);
  });

  it('adds and removes a property of a one-line object on its line', () => {
    const added = edit(SETTINGS, { location: [S, 'spare', 'enabled'], value: false });
    assert.match(
      added,
      /"spare": \{ "command": "node", "args": \["server\.mjs", "--name", "spare"\], "enabled": false \}, \/\/ to be removed/,
    );
    assert.equal(edit(added, { location: [S, 'spare', 'enabled'], value: undefined }), SETTINGS);
  });

  it('removes a member with its own line and comment, and nothing around it', () => {
    const removed = edit(SETTINGS, { location: [S, 'spare'], value: undefined });
    assert.equal(removed, SETTINGS.replace(/\n\s*"spare": \{[^\n]*\}, \/\/ to be removed/, ''));
    // The last, without a comma of its own: the one before it gives up its comma.
    const strict = edit(edit(STRICT, { location: [S, 'b'], value: { command: 'y' } }), { location: [S, 'b'], value: undefined });
    assert.equal(strict, STRICT);
  });

  it('adds a new entry laid out like its neighbours, and removing it restores the file', () => {
    const entry = { command: 'npx', args: ['-y', 'pkg'] };
    const added = edit(SETTINGS, { location: [S, 'fresh'], value: entry });
    assert.deepEqual((value(added)[S] as Record<string, unknown>).fresh, entry);
    assert.ok(
      added.includes('\n    "fresh": {\n      "command": "npx",\n      "args": [\n        "-y",\n        "pkg"\n      ]\n    }\n  },'),
      added,
    );
    assert.equal(
      edit(added, { location: [S, 'fresh'], value: undefined }),
      SETTINGS.replace('"args": ["server.mjs"] }\n', '"args": ["server.mjs"] }\n'),
    );
    assert.equal(edit(added, { location: [S, 'fresh'], value: undefined }), SETTINGS);
  });

  it('inserts into a list at an index and takes it out again', () => {
    const list = 'mcpSwitchboard.tools.disabled';
    const inserted = edit(SETTINGS, { location: [list, 0], value: 'daily/echo', insert: true });
    assert.equal(inserted, SETTINGS.replace('    "daily/zzz_not_a_tool"', '    "daily/echo",\n    "daily/zzz_not_a_tool"'));
    assert.equal(edit(inserted, { location: [list, 0], value: undefined }), SETTINGS);
    const appended = edit(SETTINGS, { location: [list, 1], value: 'last/x', insert: true });
    assert.deepEqual(value(appended)[list], ['daily/zzz_not_a_tool', 'last/x']);
    assert.equal(edit(appended, { location: [list, 1], value: undefined }), SETTINGS);
  });

  it('sets a value where it is, adds a missing key with what is missing below it, and fills an empty container', () => {
    const replaced = edit(SETTINGS, { location: ['editor.tabSize'], value: 2 });
    assert.equal(replaced, SETTINGS.replace('"editor.tabSize": 4,', '"editor.tabSize": 2,'));
    const nested = edit(SETTINGS, { location: ['mcpSwitchboard.toolSets', 'review', 'tools'], value: ['daily/echo'] });
    assert.deepEqual(value(nested)['mcpSwitchboard.toolSets'], { review: { tools: ['daily/echo'] } });
    assert.ok(nested.startsWith(SETTINGS.slice(0, SETTINGS.indexOf('"files.trimTrailingWhitespace"'))));
    assert.deepEqual(value(edit('{}\n', { location: ['a'], value: 1 })), { a: 1 });
    assert.equal(edit('{}\n', { location: ['a'], value: 1 }), '{\n  "a": 1\n}\n');
    assert.deepEqual(value(edit('{ "list": [] }', { location: ['list', 0], value: 'x', insert: true })), { list: ['x'] });
  });

  it('keeps CRLF line ends', () => {
    const crlf = STRICT.replace(/\n/g, '\r\n');
    const added = edit(crlf, { location: [S, 'a', 'enabled'], value: false });
    assert.ok(!/[^\r]\n/.test(added), JSON.stringify(added));
    assert.equal(edit(added, { location: [S, 'a', 'enabled'], value: undefined }), crlf);
  });
});
