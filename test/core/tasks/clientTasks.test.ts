// Tasks a server hands to Switchboard (2025-11-25): the reference server offers its
// trigger-sampling-request-async and trigger-elicitation-request-async tools only to a client that
// declares `tasks.requests`, as the editor's own client does. Switchboard declares it, answers the
// request with a task, and the server follows it with tasks/get and collects it with tasks/result.
import assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Cleanup } from '../connection/helpers';
import { startEverything } from './everything';

/** Every text block of a result: the server reports in several. */
function allText(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

const ASYNC_TOOLS = ['trigger-elicitation-request-async', 'trigger-sampling-request-async'];

describe('tasks a server hands to Switchboard (sampling and elicitation as tasks)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('the reference server offers every tool it offers the editor, 19 of them, the async ones included', async () => {
    const runtime = await startEverything(cleanup, { elicit: () => Promise.resolve({ action: 'decline' }) });
    const names = runtime.manager.connection('everything')?.tools.map((tool) => tool.name) ?? [];
    for (const tool of ASYNC_TOOLS) assert.ok(names.includes(tool), `${tool} is offered: ${names.join(', ')}`);
    assert.equal(names.length, 19);
  });

  it('an elicitation asked as a task is answered by whoever answers a plain one, and the server collects the answer', async () => {
    const asked: unknown[] = [];
    const runtime = await startEverything(cleanup, {
      elicit: (server, params) => {
        asked.push({ server, params });
        return Promise.resolve({ action: 'accept', content: { name: 'Ada', favoriteColor: 'Green' } });
      },
    });
    const result = await runtime.catalog.callExposedTool('everything', 'trigger-elicitation-request-async', {});
    const text = allText(result);
    assert.match(text, /\[COMPLETED\] User provided the requested information!/);
    assert.match(text, /- Name: Ada/);
    assert.match(text, /- Favorite Color: Green/);
    assert.match(text, /Task created: /, 'it was a task, not a plain request');
    assert.equal(asked.length, 1);
    const { server, params } = asked[0] as { server: string; params: Record<string, unknown> };
    assert.equal(server, 'everything');
    assert.equal(params.task, undefined, 'the answerer sees a plain request');
    assert.match(String(params.message), /async task demo/);
  });

  it('a sampling request asked as a task is answered by the host, and a refusal reaches the server as a failed task', async () => {
    const runtime = await startEverything(cleanup, {
      sample: () => Promise.resolve({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'forty-two' } }),
    });
    const answered = allText(
      await runtime.catalog.callExposedTool('everything', 'trigger-sampling-request-async', { prompt: 'the answer?' }),
    );
    assert.match(answered, /forty-two/);
    assert.match(answered, /Task created: /);

    const refusing = await startEverything(cleanup, { sample: () => Promise.reject(new Error('the user said no')) });
    const refused = allText(
      await refusing.catalog.callExposedTool('everything', 'trigger-sampling-request-async', { prompt: 'the answer?' }),
    );
    assert.match(refused, /\[FAILED\] the user said no/);
  });
});
