// The manager's events: every server's state changes, tool and offer changes and notices, in the
// order they happened, relayed from the connection of each server while it is the manager's.
import type { Clock } from '../base/clock';
import { Emitter, type Event } from '../base/events';
import type { OfferChangeEvent, ToolsChangeEvent, ServerConnection, ServerNotice } from '../connection';
import { frozenState, type ServerState, type ServerStateChangeEvent } from '../state';
import type { ManagedServer } from './managedServer';

export class ServerEvents {
  private readonly stateEmitter = new Emitter<ServerStateChangeEvent>();
  private readonly toolsEmitter = new Emitter<ToolsChangeEvent>();
  private readonly offerEmitter = new Emitter<OfferChangeEvent>();
  private readonly noticeEmitter = new Emitter<ServerNotice>();
  private readonly tasksEmitter = new Emitter<{ readonly server: string }>();
  readonly onDidChangeState: Event<ServerStateChangeEvent> = this.stateEmitter.event;
  readonly onDidChangeTools: Event<ToolsChangeEvent> = this.toolsEmitter.event;
  readonly onDidChangeOffer: Event<OfferChangeEvent> = this.offerEmitter.event;
  readonly onNotice: Event<ServerNotice> = this.noticeEmitter.event;
  /** A task a server runs for a caller started, changed status or ended (ServerView.tasks). */
  readonly onDidChangeTasks: Event<{ readonly server: string }> = this.tasksEmitter.event;

  constructor(private readonly clock: Clock) {}

  /** A state change the manager itself made (its overlay), both states frozen. */
  fireState(server: string, state: ServerState, previous: ServerState): void {
    this.stateEmitter.fire({ server, state: frozenState(state), previous: frozenState(previous), at: this.clock.now() });
  }

  /** Passes the connection's events on while `current()` says the entry is the manager's; its state only where the overlay lets it. */
  relay(entry: ManagedServer, connection: ServerConnection, current: () => boolean): void {
    entry.subscriptions.push(
      connection.onDidChangeState((event) => {
        if (current() && entry.passesConnectionEvent(event.state)) this.stateEmitter.fire(event);
      }),
      connection.onDidChangeTools((event) => {
        if (current()) this.toolsEmitter.fire({ server: entry.name, tools: event.tools });
      }),
      connection.onDidChangeOffer((event) => {
        if (current()) this.offerEmitter.fire(event);
      }),
      connection.onNotice((notice) => {
        if (current()) this.noticeEmitter.fire(notice);
      }),
      connection.tasks.onDidChange(() => {
        if (current()) this.tasksEmitter.fire({ server: entry.name });
      }),
    );
  }

  dispose(): void {
    this.stateEmitter.dispose();
    this.toolsEmitter.dispose();
    this.offerEmitter.dispose();
    this.noticeEmitter.dispose();
    this.tasksEmitter.dispose();
  }
}
