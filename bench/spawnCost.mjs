// What one `child_process.spawn()` costs the process that makes it, by how much memory that process
// holds: 20 spawns of `node -e` (a server's runtime), timed on the caller's thread. libuv forks on
// Linux, and a fork copies the caller's page tables. Not a test; read by hand (bench/RESULTS.md,
// "What the first-to-twentieth-process time is made of").
//   node bench/spawnCost.mjs            # 0 and 300 MB, twice each
//   node bench/spawnCost.mjs 0 150 300  # the sizes to try
import cp from 'node:child_process';

const sizes = process.argv.slice(2).map(Number);
for (const mb of sizes.length > 0 ? sizes : [0, 300, 0, 300]) {
  const held = [];
  for (let i = 0; i < mb; i++) held.push(Buffer.alloc(1 << 20, 1));
  const children = [];
  const started = performance.now();
  for (let i = 0; i < 20; i++) children.push(cp.spawn(process.execPath, ['-e', 'setTimeout(() => {}, 3000)'], { stdio: 'pipe' }));
  const ms = performance.now() - started;
  console.log(`holding ${mb} MB more: 20 spawn() calls took ${ms.toFixed(0)} ms (${(ms / 20).toFixed(1)} ms each)`);
  for (const child of children) child.kill();
  held.length = 0;
}
