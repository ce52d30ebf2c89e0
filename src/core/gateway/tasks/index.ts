// Tasks on the gateway, both revisions: task-augmented calls on a 2025 session (2025-11-25), the
// tasks extension for 2026-07-28 clients, and the inputs a task asks its client for.
export { SessionTasks } from './sessionTasks';
export { GATEWAY_TASKS, drivesTasks, noTaskSupport, registerTaskHandlers, startToolTask, type GatewayTasks } from './taskHandlers';
export { TASKS_EXTENSION, callOrEscalate, createModernTasks, detailed, registerModernTaskHandlers, type ModernTasks } from './modernTasks';
