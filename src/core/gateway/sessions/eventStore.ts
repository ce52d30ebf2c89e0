// Resumability for a 2025 session's SSE streams: every message the gateway sends on a stream is
// kept, with an id, so that a client whose stream broke reconnects with `Last-Event-ID` and gets
// what it missed (the call's result, most often). One store per session, bounded per session and,
// through one EventBudget, across all of them: the oldest events go first (the gateway's oldest,
// whichever session holds them), and a client that asks to resume from one that is gone is told so.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/** Per session: the most events kept, and their total size. */
export const MAX_EVENTS_PER_SESSION = 512;
export const MAX_EVENT_BYTES_PER_SESSION = 4 * 1024 * 1024;
/** Across every session of a gateway: 256 sessions at their own cap would hold 1 GiB. */
export const MAX_EVENT_BYTES_TOTAL = 64 * 1024 * 1024;

type Message = JSONRPCMessage;

interface Stored {
  readonly id: string;
  readonly streamId: string;
  /** Absent: the event was larger than a session may keep; its id is kept so that a resume past it works, and one across it is refused. */
  readonly message?: Message;
  readonly bytes: number;
}

/** What all of a gateway's stores keep together, oldest first. */
export class EventBudget {
  private readonly order: Array<{ readonly store: BoundedEventStore; readonly id: string; readonly bytes: number }> = [];
  private head = 0;
  private total = 0;

  constructor(readonly maxBytes = MAX_EVENT_BYTES_TOTAL) {}

  /** Counts an event; the gateway's oldest go until the total fits. */
  charge(store: BoundedEventStore, id: string, bytes: number): void {
    this.order.push({ store, id, bytes });
    this.total += bytes;
    while (this.total > this.maxBytes && this.head < this.order.length) {
      const oldest = this.order[this.head++];
      if (oldest) oldest.store.dropOldest(oldest.id);
    }
    // Compact now and then, so the queue does not grow with the gateway's lifetime.
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }

  /** An event left its store (dropped by its session's own bound, or the session closed). */
  credit(bytes: number): void {
    this.total -= bytes;
  }

  /** Bytes kept now, across every store. */
  get bytes(): number {
    return this.total;
  }
}

export class BoundedEventStore {
  private readonly events: Stored[] = [];
  private bytes = 0;
  private next = 0;

  constructor(
    private readonly maxEvents = MAX_EVENTS_PER_SESSION,
    private readonly maxBytes = MAX_EVENT_BYTES_PER_SESSION,
    private readonly budget = new EventBudget(),
  ) {}

  /** Keeps a message sent on a stream; returns its event id. */
  keep(streamId: string, message: Message): string {
    const id = `${streamId}_${++this.next}`;
    const size = JSON.stringify(message).length;
    // One event over the session's whole cap is not kept: everything before it could not be either.
    const kept: Stored = size > this.maxBytes ? { id, streamId, bytes: 0 } : { id, streamId, message, bytes: size };
    if (kept.message === undefined) this.clear();
    this.events.push(kept);
    this.bytes += kept.bytes;
    while (this.events.length > this.maxEvents || this.bytes > this.maxBytes) this.shift();
    this.budget.charge(this, id, kept.bytes);
    return id;
  }

  /** The budget's oldest event, if this store still holds it (its session may have dropped it already). */
  dropOldest(id: string): void {
    if (this.events[0]?.id === id) this.shift();
  }

  /** Lets every event go (the session closed). */
  clear(): void {
    while (this.events.length > 0) this.shift();
  }

  private shift(): void {
    const dropped = this.events.shift();
    if (!dropped) return;
    this.bytes -= dropped.bytes;
    this.budget.credit(dropped.bytes);
  }

  /** The stream an event was sent on, while the event is kept. */
  streamOf(eventId: string): string | undefined {
    return this.events.find((event) => event.id === eventId)?.streamId;
  }

  /** The events of the same stream after `lastEventId`, with their ids; throws when they cannot all be given. */
  after(lastEventId: string): Array<readonly [string, Message]> {
    const index = this.events.findIndex((event) => event.id === lastEventId);
    if (index < 0)
      throw new Error(
        `event ${lastEventId} is no longer kept (at most ${this.maxEvents} events and ${this.maxBytes / 1024 / 1024} MiB per session)`,
      );
    const streamId = this.events[index]?.streamId ?? '';
    const missed = this.events.slice(index + 1).filter((event) => event.streamId === streamId);
    const tooLarge = missed.find((event) => event.message === undefined);
    if (tooLarge)
      throw new Error(`event ${tooLarge.id} was larger than ${this.maxBytes / 1024 / 1024} MiB and was not kept: it cannot be sent again`);
    return missed.map((event) => [event.id, event.message as Message] as const);
  }

  /** Events kept now (for tests and bounds). */
  get size(): number {
    return this.events.length;
  }
}
