// The version of a server's definition the editor is handed: held while the editor may be starting
// or using the server (each new version costs it a stop and a start), the catalog's otherwise.
import assert from 'node:assert/strict';
import { definitionVersion, type EndpointFacts } from '../../../src/core/gateway';

const idle: EndpointFacts = { published: 'v1', current: 'v2', settling: false, startRequested: false, resolved: false, sessions: 0 };

describe('the definition version handed to the editor', () => {
  it('moves to the catalog’s when nothing holds it', () => {
    assert.equal(definitionVersion(idle), 'v2');
  });

  it('is held while servers settle, while a start Switchboard asked for has not connected, while the editor resolved it, and while it has a session', () => {
    assert.equal(definitionVersion({ ...idle, settling: true }), 'v1', 'settling');
    assert.equal(definitionVersion({ ...idle, startRequested: true }), 'v1', 'a start asked for, not connected yet');
    assert.equal(definitionVersion({ ...idle, resolved: true }), 'v1', 'resolved by the editor');
    assert.equal(definitionVersion({ ...idle, sessions: 1 }), 'v1', 'a session');
  });

  it('publishes the catalog’s version the first time, held or not, and "empty" before the catalog has one', () => {
    assert.equal(definitionVersion({ ...idle, published: undefined, settling: true }), 'v2');
    assert.equal(definitionVersion({ ...idle, published: undefined, current: undefined }), 'empty');
  });
});
