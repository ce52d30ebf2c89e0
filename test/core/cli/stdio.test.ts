import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { guardStdio, watchParent } from '../../../src/core/cli/stdio';
import { eventually } from '../support/poll';

describe('CLI stdio guard', () => {
  it('turns a failing stream into one report, and drops later writes without throwing', async () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    const reasons: string[] = [];
    const guard = guardStdio([stream], (reason) => reasons.push(reason));
    guard.write(stream, 'before\n');
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    assert.deepEqual(reasons, ['a stream: EPIPE']);
    assert.equal(guard.broken(), true);
    assert.doesNotThrow(() => guard.write(stream, 'after\n'));
    assert.equal((stream as unknown as PassThrough).read()?.toString(), 'before\n');
  });

  it('says once that the parent ended, when this process gets another parent', async () => {
    let ppid = 100;
    let gone = 0;
    const stop = watchParent(
      () => gone++,
      5,
      () => ppid,
    );
    ppid = 1;
    await eventually(() => (gone === 1 ? true : undefined), 'the parent reported gone');
    stop();
    assert.equal(gone, 1);
  });
});
