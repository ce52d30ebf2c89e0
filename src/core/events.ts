// A minimal typed event emitter with the same shape as the editor's `Event<T>`, so core classes can
// expose events that the editor adapter forwards without wrapping, while core stays free of vscode.

export interface Disposable {
  dispose(): void;
}

/** Subscribes a listener; the returned Disposable unsubscribes it. */
export type Event<T> = (listener: (value: T) => void) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(value: T) => void>();
  private disposed = false;

  /** By default a listener's error is rethrown asynchronously, so it surfaces as uncaught. */
  constructor(
    private readonly onListenerError: (error: unknown) => void = (error) =>
      queueMicrotask(() => {
        throw error;
      }),
  ) {}

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
