// MCP Apps: a tool whose `_meta.ui.visibility` leaves out "model" is called by its server's view,
// not by a language model. The gateway passes it through (the host that renders the view filters
// it); the tools Switchboard itself offers a model (the dispatcher) leave it out.

/** Whether a model may see and call this tool: true unless its `_meta.ui.visibility` excludes "model". */
export function isForModel(tool: { readonly _meta?: unknown }): boolean {
  const ui = (tool._meta as { ui?: { visibility?: unknown } } | undefined)?.ui;
  const visibility = ui?.visibility;
  return !Array.isArray(visibility) || visibility.includes('model');
}
