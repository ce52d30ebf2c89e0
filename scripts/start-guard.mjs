#!/usr/bin/env node
// Started by `npm start` in its own session: whatever ends `npm start` (Ctrl-C, a closed terminal,
// SIGTERM to npm alone, SIGKILL), this ends code-server's process group (the editor, its extension
// host and the MCP servers it spawned) and removes the run's temp folder once the owner is gone.
//   node scripts/start-guard.mjs OWNER_PID PROCESS_GROUP STATE_DIR
import fs from 'node:fs';
import { endProcessGroup, groupAlive, isAlive } from './processes.mjs';

const [owner, group, stateDir] = process.argv.slice(2);
const ownerPid = Number(owner);
const groupId = Number(group);
const POLL_MS = 250;

if (!Number.isInteger(ownerPid) || !Number.isInteger(groupId) || groupId <= 1) process.exit(2);
process.on('SIGHUP', () => undefined); // A closed terminal must not end the guard before it has cleaned up.
for (;;) {
  // The group gone by itself (a clean stop): nothing left to do but the folder.
  if (!groupAlive(groupId)) break;
  if (!isAlive(ownerPid)) {
    await endProcessGroup(groupId);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}
if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
process.exit(0);
