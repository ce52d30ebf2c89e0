// Whether a process exists (signal 0 checks without sending). EPERM: it exists, owned by another user.
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
