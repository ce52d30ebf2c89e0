// What a server asks back while a request is served (elicitation, sampling, roots): as requests of
// its own on a 2025 link, routed to the client whose request caused them or to the host, and as
// `input_required` rounds of the request itself on a 2026-07-28 link.
export {
  INPUT_METHOD,
  answerForHost,
  extrasFor,
  isInputRound,
  runClientRounds,
  type ClientInputRound,
  type ClientRounds,
  type ClientTasks,
  type InputKind,
  type RoundParams,
  type UpstreamExtras,
} from './inputRounds';
export { RelayRouter, askingRelay, type HostAnswers, type Relay } from './relayRouter';
