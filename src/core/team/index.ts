export { MAX_TEAM_SERVERS, TeamDirectory, type TeamDirectoryOptions } from './teamDirectory';
