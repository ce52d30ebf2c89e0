// The editor's chat names for the tools Switchboard publishes, as VS Code 1.139 builds them (its
// McpPrefixGenerator and McpTool id); the editor suite checks them against vscode.lm.tools.
import assert from 'node:assert/strict';
import { editorToolName, editorToolPrefixes } from '../../../src/core/presentation/chatNames';

describe('chat tool names', () => {
  it('prefixes with mcp_ and the lower-cased server name, cut to 18 characters with the separator', () => {
    const prefixes = editorToolPrefixes(['ok', 'Server-Memory', 'a very long server name indeed']);
    assert.equal(prefixes.get('ok'), 'mcp_ok_');
    assert.equal(prefixes.get('Server-Memory'), 'mcp_server-memory_');
    assert.equal(prefixes.get('a very long server name indeed'), 'mcp_a_very_long_s_');
    assert.equal(editorToolName('mcp_ok_', 'get.time'), 'mcp_ok_get_time');
    assert.equal(editorToolName('mcp_ok_', 'x'.repeat(100)).length, 64);
  });

  it('numbers a second server whose cut name is the same, in the order met', () => {
    const prefixes = editorToolPrefixes(['github-enterprise-a', 'github-enterprise-b']);
    assert.equal(prefixes.get('github-enterprise-a'), 'mcp_github-enterp_');
    assert.equal(prefixes.get('github-enterprise-b'), 'mcp_github-enter2_');
  });
});
