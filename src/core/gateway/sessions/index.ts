// A 2025 session's transport on Node's own request and response, the store that makes its streams
// resumable, and the table that bounds how many sessions stay open and for how long.
export { SessionTransport } from './sessionTransport';
export { BoundedEventStore, EventBudget } from './eventStore';
export { SessionTable, type TableSession } from './sessionTable';
