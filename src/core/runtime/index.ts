// The runtime module's surface: what the rest of Switchboard uses of it.
export { SwitchboardRuntime, createRuntime } from './runtime';
