// Tasks on the upstream side: the tasks a server runs for a call (both revisions), followed to their
// end, and the calls that must or may run as one.
export { RunningTasks, isTaskOver, type RunningTask } from './runningTasks';
export { ServerTaskFollower, serverTaskPath, taskEnvelope } from './serverTasks';
export { TaskCalls, needsTasks, requiresTask } from './taskCalls';
