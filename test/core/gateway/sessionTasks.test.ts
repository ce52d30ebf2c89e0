// The gateway's tasks of one session (2025-11-25 tasks, gateway/tasks/sessionTasks.ts), on a fake clock:
// statuses, results and errors as tasks/result returns them, what a task asks and on which request
// it goes out, cancellation, ttl, and the bounds. The wire and a real upstream: tasks/gateway2025.test.ts.
import assert from 'node:assert/strict';
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import { MAX_KEPT, MAX_RUNNING, POLL_INTERVAL_MS, SessionTasks, type TaskWork } from '../../../src/core/gateway/tasks/sessionTasks';
import { FakeClock } from '../support/fakeClock';
import { MODERN_RULES } from '../../../src/core/gateway/tasks/modernTasks';

type Channel = string;

/** A task's work that the test ends when it likes. */
function controlled(): {
  run: (work: TaskWork<Channel>) => Promise<CallToolResult>;
  work: () => TaskWork<Channel>;
  resolve: (result: CallToolResult) => void;
  reject: (error: unknown) => void;
} {
  let work: TaskWork<Channel> | undefined;
  let resolve: (result: CallToolResult) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  return {
    run: (given) => {
      work = given;
      return new Promise<CallToolResult>((yes, no) => {
        resolve = yes;
        reject = no;
        given.signal.addEventListener('abort', () => no(given.signal.reason), { once: true });
      });
    },
    work: () => {
      assert.ok(work, 'the work started');
      return work;
    },
    resolve: (result) => resolve(result),
    reject: (error) => reject(error),
  };
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const never = new AbortController().signal;

function invalidParams(error: unknown): boolean {
  return error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams;
}

describe('gateway tasks of one session', () => {
  it('starts working with its ttl and poll interval, reports statuses, and tasks/result returns the result', async () => {
    const clock = new FakeClock();
    const tasks = new SessionTasks<Channel>(clock);
    const seen: string[] = [];
    tasks.onDidChange((task) => seen.push(`${task.status}:${task.statusMessage ?? ''}`));
    const work = controlled();
    const task = tasks.start(60_000, work.run);
    assert.equal(task.status, 'working');
    assert.equal(task.ttl, 60_000);
    assert.equal(task.pollInterval, POLL_INTERVAL_MS);
    assert.equal(task.createdAt, new Date(clock.now()).toISOString());
    const result = tasks.result(task.taskId, 'result-request', never);
    await Promise.resolve();
    work.work().report('Halfway');
    clock.advance(1_000);
    work.resolve(text('done'));
    assert.deepEqual(await result, { result: text('done') });
    const after = await tasks.get(task.taskId, 'get', never);
    assert.equal(after.status, 'completed');
    assert.equal(after.lastUpdatedAt, new Date(clock.now()).toISOString());
    assert.deepEqual(seen, ['working:Halfway', 'completed:Halfway']);
  });

  it("a tool error is a failed task whose message is the tool's; a thrown JSON-RPC error is what tasks/result gives", async () => {
    const tasks = new SessionTasks<Channel>(new FakeClock());
    const failing = controlled();
    const one = tasks.start(undefined, failing.run);
    failing.resolve({ ...text('disk full'), isError: true });
    assert.deepEqual(await tasks.result(one.taskId, 'r', never), { result: { ...text('disk full'), isError: true } });
    const view = await tasks.get(one.taskId, 'g', never);
    assert.equal(view.status, 'failed');
    assert.equal(view.statusMessage, 'disk full');

    const throwing = controlled();
    const two = tasks.start(undefined, throwing.run);
    throwing.reject(new ProtocolError(-32042, 'upstream says no', { why: 'test' }));
    const outcome = await tasks.result(two.taskId, 'r', never);
    assert.ok('error' in outcome);
    assert.equal(outcome.error.code, -32042);
    assert.deepEqual(outcome.error.data, { why: 'test' });
    assert.equal((await tasks.get(two.taskId, 'g', never)).status, 'failed');
  });

  it("what a task asks waits for the client's next request about it, reads input_required, and goes out on that request", async () => {
    const tasks = new SessionTasks<Channel>(new FakeClock());
    const work = controlled();
    const task = tasks.start(undefined, work.run);
    const sentOn: string[] = [];
    let answer: (value: string) => void = () => undefined;
    const asked = work.work().ask((channel) => {
      sentOn.push(channel);
      return new Promise<string>((resolve) => (answer = resolve));
    });
    await Promise.resolve();
    // The client's tasks/get carries the ask: it stays open until the answer, then shows the task working.
    const carrying = tasks.get(task.taskId, 'early', never);
    await Promise.resolve();
    assert.deepEqual(sentOn, ['early']);
    assert.equal(
      (await tasks.get(task.taskId, 'second', never)).status,
      'input_required',
      'a request while the ask is out answers at once',
    );
    answer('yes');
    assert.equal(await asked, 'yes');
    assert.equal((await carrying).status, 'working', 'back to working once answered');
    // An ask while the client waits on tasks/result goes out on that request.
    const result = tasks.result(task.taskId, 'result-request', never);
    await Promise.resolve();
    const again = work.work().ask(async (channel) => channel);
    assert.equal(await again, 'result-request');
    work.resolve(text('ok'));
    assert.deepEqual(await result, { result: text('ok') });
  });

  it('a tasks/get that carries an ask answers once the ask is answered', async () => {
    const tasks = new SessionTasks<Channel>(new FakeClock());
    const work = controlled();
    const task = tasks.start(undefined, work.run);
    let answer: () => void = () => undefined;
    void work.work().ask(() => new Promise<void>((resolve) => (answer = resolve)));
    await Promise.resolve();
    let answered = false;
    const carrying = tasks.get(task.taskId, 'carrier', never).then((view) => {
      answered = true;
      return view;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'held while the client answers');
    answer();
    assert.equal((await carrying).status, 'working');
  });

  it('cancel ends the task (its work is aborted), tasks/result then fails, and a second cancel is -32602', async () => {
    const tasks = new SessionTasks<Channel>(new FakeClock());
    const work = controlled();
    const task = tasks.start(undefined, work.run);
    const result = tasks.result(task.taskId, 'r', never);
    const cancelled = tasks.cancel(task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.ok(work.work().signal.aborted, 'the work was told');
    const outcome = await result;
    assert.ok('error' in outcome && /cancelled/.test(outcome.error.message));
    assert.throws(() => tasks.cancel(task.taskId), invalidParams);
    // The work ending late changes nothing.
    work.resolve(text('late'));
    await Promise.resolve();
    assert.equal((await tasks.get(task.taskId, 'g', never)).status, 'cancelled');
  });

  it('unknown ids and cursors are -32602', async () => {
    const tasks = new SessionTasks<Channel>(new FakeClock());
    await assert.rejects(tasks.get('nope', 'g', never), invalidParams);
    await assert.rejects(tasks.result('nope', 'r', never), invalidParams);
    assert.throws(() => tasks.cancel('nope'), invalidParams);
    assert.throws(() => tasks.list('nope'), invalidParams);
  });

  it('a task is deleted when its ttl runs out, its work aborted; ttl is bounded', async () => {
    const clock = new FakeClock();
    const tasks = new SessionTasks<Channel>(clock);
    const work = controlled();
    const task = tasks.start(5_000, work.run);
    clock.advance(4_999);
    assert.equal((await tasks.get(task.taskId, 'g', never)).status, 'working');
    clock.advance(1);
    assert.ok(work.work().signal.aborted);
    await assert.rejects(tasks.get(task.taskId, 'g', never), invalidParams);
    assert.equal(tasks.start(10 * 24 * 3600_000, controlled().run).ttl, 60 * 60_000, 'at most an hour');
    assert.equal(tasks.start(1, controlled().run).ttl, 1_000, 'at least a second');
  });

  it(`runs at most ${MAX_RUNNING} at once per session, keeps at most ${MAX_KEPT}, lists them in pages`, async () => {
    const tasks = new SessionTasks<Channel>(new FakeClock());
    const running = Array.from({ length: MAX_RUNNING }, () => controlled());
    const started = running.map((work) => tasks.start(undefined, work.run));
    assert.throws(
      () => tasks.start(undefined, controlled().run),
      (error: unknown) => error instanceof ProtocolError && /running 16 tasks/.test(error.message),
    );
    running[0]?.resolve(text('one'));
    await new Promise((resolve) => setImmediate(resolve));
    tasks.start(undefined, controlled().run);
    for (const work of running.slice(2)) work.resolve(text('finished'));
    await new Promise((resolve) => setImmediate(resolve));
    // Finished tasks are kept until MAX_KEPT in all; the oldest finished one makes room.
    for (let index = 0; index < MAX_KEPT; index += 1) {
      const work = controlled();
      tasks.start(undefined, work.run);
      work.resolve(text(`n${index}`));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const first = tasks.list(undefined);
    assert.equal(first.tasks.length, 50);
    assert.ok(first.nextCursor);
    const rest = tasks.list(first.nextCursor);
    assert.equal(first.tasks.length + rest.tasks.length, MAX_KEPT);
    assert.equal(rest.nextCursor, undefined);
    await assert.rejects(tasks.get(started[0]?.taskId ?? '', 'g', never), invalidParams, 'the oldest finished one went first');
    assert.equal((await tasks.get(started[1]?.taskId ?? '', 'g', never)).status, 'working', 'running ones stay');
  });

  it('dispose (the session closed) aborts every unfinished task', () => {
    const tasks = new SessionTasks<Channel>(new FakeClock());
    const work = controlled();
    tasks.start(undefined, work.run);
    tasks.dispose();
    assert.ok(work.work().signal.aborted);
    assert.throws(() => tasks.start(undefined, controlled().run), ProtocolError);
  });

  describe("one store for many clients (the gateway's, for 2026-07-28 clients): each client has its share", () => {
    const share = MODERN_RULES.perOwner ?? { maxRunning: 0, maxKept: 0 };

    it(`one client runs at most ${share.maxRunning} tasks; another still gets one`, async () => {
      const tasks = new SessionTasks<Channel>(new FakeClock(), MODERN_RULES);
      for (let index = 0; index < share.maxRunning; index++) tasks.start(undefined, controlled().run, 'hog@1');
      assert.throws(
        () => tasks.start(undefined, controlled().run, 'hog@1'),
        /This client is running 16 tasks, the most the gateway runs at once for one client/,
      );
      assert.equal(tasks.start(undefined, controlled().run, 'polite@1').status, 'working');
    });

    it("a client keeping too many finished tasks loses its own oldest results, never another client's", async () => {
      const tasks = new SessionTasks<Channel>(new FakeClock(), MODERN_RULES);
      const polite = controlled();
      const kept = tasks.start(undefined, polite.run, 'polite@1');
      polite.resolve(text('mine'));
      await new Promise((resolve) => setImmediate(resolve));
      const hogIds: string[] = [];
      for (let index = 0; index < MODERN_RULES.maxKept + 50; index++) {
        const work = controlled();
        hogIds.push(tasks.start(undefined, work.run, 'hog@1').taskId);
        work.resolve(text(`hog ${index}`));
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.equal(tasks.detail(kept.taskId).task.status, 'completed', "the polite client's result is still there");
      assert.throws(() => tasks.detail(hogIds[0] ?? ''), invalidParams);
      assert.equal(tasks.detail(hogIds.at(-1) ?? '').task.status, 'completed');
      assert.equal(
        hogIds.filter((id) => {
          try {
            tasks.detail(id);
            return true;
          } catch {
            return false;
          }
        }).length,
        share.maxKept,
      );
    });
  });
});
