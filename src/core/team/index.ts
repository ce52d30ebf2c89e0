// A user's host reading a team gateway's list of its servers (GET /servers) with the gateway's one sign-in.
export { MAX_TEAM_SERVERS, TeamDirectory, type TeamDirectoryOptions } from './teamDirectory';
