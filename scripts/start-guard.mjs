#!/usr/bin/env node
// Started by `npm start` in its own session: whatever ends `npm start` (Ctrl-C, a closed terminal,
// SIGTERM to npm alone, SIGKILL), this ends code-server's process group (the editor, its extension
// host and the MCP servers it spawned) and removes the run's temp folder once the owner is gone.
//   node scripts/start-guard.mjs OWNER_PID PROCESS_GROUP STATE_DIR
import fs from 'node:fs';
import { isAlive } from './process-alive.mjs';

const [owner, group, stateDir] = process.argv.slice(2);
const ownerPid = Number(owner);
const groupId = Number(group);
const POLL_MS = 250;
const GRACE_MS = 3000;


function signalGroup(signal) {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    return false;
  }
}

async function cleanUp() {
  if (signalGroup('SIGTERM')) {
    const deadline = Date.now() + GRACE_MS;
    while (signalGroup(0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    signalGroup('SIGKILL');
  }
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
}

if (!Number.isInteger(ownerPid) || !Number.isInteger(groupId) || groupId <= 1) process.exit(2);
process.on('SIGHUP', () => undefined); // A closed terminal must not end the guard before it has cleaned up.
for (;;) {
  // The group gone by itself (a clean stop): nothing left to do but the folder.
  if (!signalGroup(0)) {
    if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
    process.exit(0);
  }
  if (!isAlive(ownerPid)) {
    await cleanUp();
    process.exit(0);
  }
  await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}
