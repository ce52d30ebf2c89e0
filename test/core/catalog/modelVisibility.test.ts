import assert from 'node:assert/strict';
import { isForModel } from '../../../src/core/catalog/modelVisibility';

describe('isForModel (MCP Apps tool visibility)', () => {
  it('a tool is for a model unless its _meta.ui.visibility leaves "model" out', () => {
    assert.equal(isForModel({}), true);
    assert.equal(isForModel({ _meta: { ui: { resourceUri: 'ui://x' } } }), true);
    assert.equal(isForModel({ _meta: { ui: { visibility: ['model', 'app'] } } }), true);
    assert.equal(isForModel({ _meta: { ui: { visibility: ['app'] } } }), false);
    assert.equal(isForModel({ _meta: { ui: { visibility: [] } } }), false);
    assert.equal(isForModel({ _meta: { ui: { visibility: 'app' } } }), true, "not a list: not the spec's field, so nothing is hidden");
  });
});
