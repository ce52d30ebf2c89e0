// The names of the settings the catalog reads, declared once: the readers use the keys below the
// section, the filters and warnings name the whole setting.
export const SETTINGS_SECTION = 'mcpSwitchboard';
export const TOOLS_DENY = 'tools.deny';
export const TOOLS_DISABLED = 'tools.disabled';
export const TOOLS_MAX_EXPOSED = 'tools.maxExposed';
export const TOOLS_CACHE_TTL_DAYS = 'tools.cacheTtlDays';
export const TOOL_SETS = 'toolSets';
export const TOOL_SET = 'toolSet';

export const GLOBAL_DENY_SETTING = `${SETTINGS_SECTION}.${TOOLS_DENY}`;
export const DISABLED_SETTING = `${SETTINGS_SECTION}.${TOOLS_DISABLED}`;
export const MAX_EXPOSED_SETTING = `${SETTINGS_SECTION}.${TOOLS_MAX_EXPOSED}`;
export const SERVERS_SETTING = `${SETTINGS_SECTION}.servers`;
export const TOOL_SETS_SETTING = `${SETTINGS_SECTION}.${TOOL_SETS}`;
export const TOOL_SET_SETTING = `${SETTINGS_SECTION}.${TOOL_SET}`;
