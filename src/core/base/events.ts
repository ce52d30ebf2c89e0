// A minimal typed event emitter with the same shape as the editor's `Event<T>`, so core classes can
// expose events that the editor adapter forwards without wrapping, while core stays free of vscode.
import { errorMessage } from './errorMessage';

export interface Disposable {
  dispose(): void;
}

/** Subscribes a listener; the returned Disposable unsubscribes it. */
export type Event<T> = (listener: (value: T) => void) => Disposable;

type ListenerErrorSink = (error: unknown) => void;

let listenerErrorSink: ListenerErrorSink = (error) => {
  console.error('[mcp-switchboard] an event listener failed:', errorMessage(error));
};

/**
 * Where errors thrown by event listeners go: the runtime points this at its log. A listener's
 * error is reported, never rethrown: rethrowing (even asynchronously) turns one broken listener
 * into an uncaught exception that takes the whole host down.
 */
export function setListenerErrorSink(sink: ListenerErrorSink): Disposable {
  const previous = listenerErrorSink;
  listenerErrorSink = sink;
  return { dispose: () => void (listenerErrorSink = previous) };
}

function reportListenerError(error: unknown): void {
  try {
    listenerErrorSink(error);
  } catch {
    // The sink itself failed (a closed log); there is nowhere left to report to.
  }
}

export class Emitter<T> implements Disposable {
  private listeners = new Set<(value: T) => void>();
  private disposed = false;

  constructor(private readonly onListenerError: (error: unknown) => void = reportListenerError) {}

  /** Bound so that it can be handed out as a property (`readonly onDidX = this.emitter.event`). */
  readonly event: Event<T> = (listener) => {
    if (this.disposed) return { dispose: () => undefined };
    // Wrapped so the same function subscribed twice gets two independent subscriptions.
    const entry = (value: T): void => listener(value);
    this.listeners.add(entry);
    return { dispose: () => void this.listeners.delete(entry) };
  };

  /**
   * Calls every listener with `value`. A throwing listener must not stop the others or the code
   * that fired the event (a state machine mid-transition), so its error goes to `onListenerError`.
   */
  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}
