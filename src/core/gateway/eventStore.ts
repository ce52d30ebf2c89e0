// Resumability for a 2025 session's SSE streams: every message the gateway sends on a stream is
// kept, with an id, so that a client whose stream broke reconnects with `Last-Event-ID` and gets
// what it missed (the call's result, most often). One store per session, bounded: the oldest
// events go first, and a client that asks to resume from one that is gone is told so.
import type { EventStore } from '@modelcontextprotocol/server';

/** Per session: the most events kept, and their total size. */
export const MAX_EVENTS_PER_SESSION = 512;
export const MAX_EVENT_BYTES_PER_SESSION = 4 * 1024 * 1024;

type Message = Parameters<EventStore['storeEvent']>[1];

interface Stored {
  readonly id: string;
  readonly streamId: string;
  readonly message: Message;
  readonly bytes: number;
}

export class BoundedEventStore implements EventStore {
  private readonly events: Stored[] = [];
  private bytes = 0;
  private next = 0;

  constructor(private readonly maxEvents = MAX_EVENTS_PER_SESSION, private readonly maxBytes = MAX_EVENT_BYTES_PER_SESSION) {}

  async storeEvent(streamId: string, message: Message): Promise<string> {
    const id = `${streamId}_${++this.next}`;
    const bytes = JSON.stringify(message).length;
    this.events.push({ id, streamId, message, bytes });
    this.bytes += bytes;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) {
      const dropped = this.events.shift();
      if (dropped) this.bytes -= dropped.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((event) => event.id === eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: Message) => Promise<void> }): Promise<string> {
    const index = this.events.findIndex((event) => event.id === lastEventId);
    if (index < 0) throw new Error(`event ${lastEventId} is no longer kept (at most ${this.maxEvents} events per session)`);
    const streamId = this.events[index]?.streamId ?? '';
    for (const event of this.events.slice(index + 1)) if (event.streamId === streamId) await send(event.id, event.message);
    return streamId;
  }

  /** Events kept now (for tests and bounds). */
  get size(): number {
    return this.events.length;
  }
}
