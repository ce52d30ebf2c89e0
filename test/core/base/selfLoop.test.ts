import assert from 'node:assert/strict';
import {
  cameBack,
  cameFrom,
  MAX_TRAIL,
  newSwitchboardId,
  trailOf,
  VIA_META,
  withTrail,
  withoutReturns,
} from '../../../src/core/base/selfLoop';

describe('selfLoop: what came through which Switchboard', () => {
  it('a request says where it comes from; only its own id is a loop', () => {
    const id = newSwitchboardId();
    assert.match(id, /^[A-Za-z0-9_-]{16}$/);
    assert.notEqual(newSwitchboardId(), id);
    assert.equal(cameFrom(id, id), true);
    assert.equal(cameFrom(`other, ${id}`, id), true);
    assert.equal(cameFrom(['x', id], id), true);
    assert.equal(cameFrom(`${id}x`, id), false);
    assert.equal(cameFrom(undefined, id), false);
  });

  it('an item listed by a gateway carries its trail, its own _meta kept, the original untouched', () => {
    const tool = { name: 'echo', _meta: { 'io.modelcontextprotocol/ui': { resourceUri: 'ui://x' } } };
    const once = withTrail(tool, 'a');
    const twice = withTrail(once, 'b');
    assert.deepEqual(trailOf(twice), ['a', 'b']);
    assert.deepEqual((twice._meta as Record<string, unknown>)['io.modelcontextprotocol/ui'], { resourceUri: 'ui://x' });
    assert.deepEqual(trailOf(tool), []);
    assert.equal(cameBack(twice, 'a'), true);
    assert.equal(cameBack(twice, 'c'), false);
  });

  it('a trail that is not a list of ids is no trail; one longer than any real chain is dropped', () => {
    assert.deepEqual(trailOf({ _meta: { [VIA_META]: 'a' } }), []);
    assert.deepEqual(trailOf({ _meta: { [VIA_META]: ['a', 7, 'b c', 'ok'] } }), ['a', 'ok']);
    const long = { _meta: { [VIA_META]: Array.from({ length: MAX_TRAIL }, (_, index) => `g${index}`) } };
    assert.equal(cameBack(long, 'mine'), true);
    const { kept, returned } = withoutReturns([long, { name: 'x' }, withTrail({ name: 'y' }, 'mine')], 'mine');
    assert.deepEqual(kept, [{ name: 'x' }]);
    assert.equal(returned, 2);
    assert.equal(withoutReturns([long], undefined).returned, 0);
  });
});
