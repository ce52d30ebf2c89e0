// A 2025 client whose stream breaks during a call resumes it with Last-Event-ID and gets the
// result; the store of sent events is bounded per session.
import assert from 'node:assert/strict';
import { BoundedEventStore, EventBudget } from '../../../src/core/gateway/sessions/eventStore';
import { Cleanup, startGateway, toolsServer } from './helpers';

interface Frame {
  id?: string;
  /** The event's name, as an SSE client reads it: `message` when the event names none. */
  event: string;
  /** The raw data lines, joined (an empty string for a data line with nothing on it). */
  raw?: string;
  data?: unknown;
}

/** Reads SSE frames from a response until `stop` says so; returns them parsed. */
async function readFrames(response: Response, stop: (frames: Frame[]) => boolean): Promise<Frame[]> {
  const reader = response.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buffer = '';
  while (!stop(frames)) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame: Frame = { event: 'message' };
      for (const line of buffer.slice(0, end).split('\n')) {
        if (line.startsWith('id:')) frame.id = line.slice(3).trim();
        if (line.startsWith('event:')) frame.event = line.slice(6).trim();
        if (line.startsWith('data:')) frame.raw = (frame.raw === undefined ? '' : `${frame.raw}\n`) + line.slice(5).trim();
        if (line.startsWith('data:') && line.slice(5).trim() !== '') frame.data = JSON.parse(line.slice(5));
      }
      frames.push(frame);
      buffer = buffer.slice(end + 2);
    }
  }
  await reader.cancel().catch(() => undefined);
  return frames;
}

describe('gateway: resumable 2025 streams', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('a client that lost the stream of a call resumes with Last-Event-ID and gets the result', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha', ['--slow-ms', '800'])]);
    const url = gateway.endpointUrl('alpha');
    const headers = {
      Authorization: `Bearer ${gateway.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (
      await fetch(url, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();

    // The call's stream: its priming event has an id; then the client loses the stream.
    const lost = new AbortController();
    const call = await fetch(url, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } }),
      signal: lost.signal,
    });
    const before = await readFrames(call, (frames) => frames.some((frame) => frame.id !== undefined));
    lost.abort();
    const primed = before.find((frame) => frame.id !== undefined)?.id;
    assert.ok(primed, 'a priming event with an id');
    assert.ok(!before.some((frame) => (frame.data as { id?: number } | undefined)?.id === 2), 'the result had not come yet');

    // As a client does: reconnect, again after the server's retry interval while the server has
    // not yet seen the old stream close (409), a bounded number of times.
    let resumed = await fetch(url, { method: 'GET', headers: { ...sessionHeaders, 'last-event-id': primed } });
    for (let attempt = 0; resumed.status === 409 && attempt < 20; attempt++) {
      await resumed.text();
      await new Promise((resolve) => setTimeout(resolve, 100));
      resumed = await fetch(url, { method: 'GET', headers: { ...sessionHeaders, 'last-event-id': primed } });
    }
    assert.equal(resumed.status, 200);
    const after = await readFrames(resumed, (frames) => frames.some((frame) => (frame.data as { id?: number } | undefined)?.id === 2));
    const result = after.find((frame) => (frame.data as { id?: number } | undefined)?.id === 2)?.data as {
      result?: { content?: Array<{ text?: string }> };
    };
    assert.ok(result?.result, JSON.stringify(after));
  });

  it("answers at once in one JSON response, and streams a slow answer from a named priming event, so the editor's client never logs 'Failed to parse message'", async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha', ['--slow-ms', '300'])]);
    const url = gateway.endpointUrl('alpha');
    const headers = {
      Authorization: `Bearer ${gateway.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    // Answered at once: the whole answer in one JSON body, with the session's id.
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    assert.match(init.headers.get('content-type') ?? '', /^application\/json/);
    const sessionId = init.headers.get('mcp-session-id') ?? '';
    assert.match(sessionId, /^[0-9a-f-]{36}$/);
    const initAnswer = (await init.json()) as { id?: number; result?: { protocolVersion?: string } };
    assert.equal(initAnswer.id, 1);
    assert.equal(initAnswer.result?.protocolVersion, '2025-11-25');
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };

    // Answered after 300 ms: an SSE stream, its named priming event first, with an id to resume from.
    const slow = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } }, session);
    assert.match(slow.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = await readFrames(slow, (all) => all.some((frame) => (frame.data as { id?: number } | undefined)?.id === 2));
    assert.equal(frames[0]?.event, 'priming', JSON.stringify(frames));
    assert.ok(frames[0]?.id, `the priming event carries an id to resume from: ${JSON.stringify(frames)}`);
    assert.deepEqual(
      frames.filter((frame) => frame.event === 'message' && !frame.raw),
      [],
      'a message event with nothing to parse',
    );
    assert.ok(frames.some((frame) => (frame.data as { id?: number } | undefined)?.id === 2));
  });

  it('refuses a request whose id is still in flight in the session, and the first still gets its answer', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha', ['--slow-ms', '300'])]);
    const url = gateway.endpointUrl('alpha');
    const headers = {
      Authorization: `Bearer ${gateway.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
    await init.text();
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: {} } };
    // Its answer's stream has begun (the call takes 300 ms, past the 50 ms hold): it is in flight.
    const first = await post(call, session);
    assert.match(first.headers.get('content-type') ?? '', /^text\/event-stream/);
    const again = await post(call, session);
    assert.equal(again.status, 400);
    assert.match(((await again.json()) as { error: { message: string } }).error.message, /request id 7 is already in flight/);
    const frames = await readFrames(first, (all) => all.some((frame) => (frame.data as { id?: number } | undefined)?.id === 7));
    assert.ok(
      frames.some((frame) => (frame.data as { result?: unknown; id?: number } | undefined)?.id === 7),
      JSON.stringify(frames),
    );
  });

  it('keeps a bounded number of events per session, and says so for one that is gone', async () => {
    const store = new BoundedEventStore(3, 1_000_000);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++)
      ids.push(store.keep('s', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: index } }));
    assert.equal(store.size, 3);
    assert.throws(() => store.after(ids[0] ?? ''), /no longer kept/);
    assert.equal(store.streamOf(ids[2] ?? ''), 's');
    assert.deepEqual(
      store.after(ids[2] ?? '').map(([id]) => id),
      ids.slice(3),
    );
    const small = new BoundedEventStore(100, 200);
    for (let index = 0; index < 10; index++)
      small.keep('s', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(50) } });
    assert.ok(small.size < 10, `bounded by bytes: ${small.size}`);
  });

  it("one budget across every session: the gateway's oldest events go first, whichever session holds them", async () => {
    const budget = new EventBudget(10_000);
    const message = (index: number) => ({
      jsonrpc: '2.0' as const,
      method: 'notifications/message',
      params: { level: 'info', data: `${index}`.padEnd(900, '.') },
    });
    const stores = Array.from({ length: 4 }, () => new BoundedEventStore(512, 1_000_000, budget));
    const ids: string[][] = stores.map(() => []);
    for (let round = 0; round < 10; round++)
      for (const [index, store] of stores.entries()) ids[index]?.push(store.keep('s', message(round)));
    assert.ok(budget.bytes <= 10_000, `${budget.bytes} bytes kept across sessions`);
    assert.ok(
      stores.every((store) => store.size >= 2),
      `every session keeps its newest: ${stores.map((store) => store.size).join(', ')}`,
    );
    // The first events of every session went; the last of each can still be resumed from.
    for (const [index, store] of stores.entries()) {
      assert.throws(() => store.after(ids[index]?.[0] ?? ''), /no longer kept/);
      assert.equal(store.after(ids[index]?.at(-2) ?? '').length, 1);
    }
    // A closed session gives its share back.
    for (const store of stores) store.clear();
    assert.equal(budget.bytes, 0);
  });

  it('an event larger than a session may keep is not kept whole: a resume across it is refused, one past it works', async () => {
    const budget = new EventBudget(1_000_000);
    const store = new BoundedEventStore(100, 1_000, budget);
    const before = store.keep('s', {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    });
    const huge = store.keep('s', {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'x'.repeat(5_000) },
    });
    const after = store.keep('s', {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 3 },
    });
    assert.ok(budget.bytes < 1_000, `the large event is not held: ${budget.bytes} bytes`);
    assert.throws(() => store.after(before), /no longer kept|larger than/);
    assert.deepEqual(
      store.after(huge).map(([id]) => id),
      [after],
    );
  });
});
