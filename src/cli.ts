// Placeholder until the doctor CLI lands.
console.error('mcp-switchboard: the doctor command is not built yet');
process.exitCode = 2;
