// Everything Switchboard does to the MCP SDK beyond its public calls, in one module (README.md):
// the tap on a client's transport, and the server that lets a task handle through its result
// check. The build's patches of the bundled SDK are listed in the README with them; the contract
// tests (test/core/sdk) run against the SDK as installed and as bundled.
export { resultTypeMend, tapTransport, type TransportHooks } from './transportTap';
export { TaskReceivingServer, asTaskHandle, taskHandlePast } from './taskHandles';
