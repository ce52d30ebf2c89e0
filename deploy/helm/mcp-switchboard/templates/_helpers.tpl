{{/* The release's name for its objects: the release name, with the chart's name unless it has it. */}}
{{- define "switchboard.name" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "switchboard.labels" -}}
app.kubernetes.io/name: {{ include "switchboard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "switchboard.selector" -}}
app.kubernetes.io/name: {{ include "switchboard.name" . }}
{{- end -}}

{{- define "switchboard.redisSelector" -}}
app.kubernetes.io/name: {{ include "switchboard.name" . }}-redis
{{- end -}}

{{/* The Redis the replicas share, when the URL is no secret: one named without a password, or none. */}}
{{- define "switchboard.redisUrl" -}}
{{- if not .Values.redis.enabled -}}
{{- .Values.redis.url -}}
{{- end -}}
{{- end -}}

{{/*
config.settings split in two, as JSON: `gateway`, the settings the gateway reads, where each stdio
server is an HTTP entry of the `upstreams` container; `upstreams`, the settings that container
reads (the stdio servers, with no budget: the gateway applies its own), or null without any.
*/}}
{{- define "switchboard.splitSettings" -}}
{{- $settings := fromJson .Values.config.settings -}}
{{- if hasKey $settings "Error" -}}
{{- fail (printf "config.settings must be JSON without comments: %s" (index $settings "Error")) -}}
{{- end -}}
{{- $servers := get $settings "mcpSwitchboard.servers" | default dict -}}
{{- $gatewayServers := dict -}}
{{- $stdioServers := dict -}}
{{- range $name, $server := $servers -}}
{{- if and (kindIs "map" $server) (hasKey $server "command") -}}
{{- if not (regexMatch "^[A-Za-z0-9._-]{1,64}$" $name) -}}
{{- fail (printf "config.settings: the stdio server %q runs in the upstreams container, reached by its name in a URL: letters, digits, '.', '_' and '-' only" $name) -}}
{{- end -}}
{{- $_ := set $stdioServers $name $server -}}
{{- $_ := set $gatewayServers $name (dict "url" (printf "http://127.0.0.1:%d/mcp/%s" (int $.Values.upstreams.port) $name) "headers" (dict "Authorization" "Bearer ${env:MCP_SWITCHBOARD_UPSTREAMS_TOKEN}")) -}}
{{- else -}}
{{- $_ := set $gatewayServers $name $server -}}
{{- end -}}
{{- end -}}
{{- $gateway := deepCopy $settings -}}
{{- $_ := set $gateway "mcpSwitchboard.servers" $gatewayServers -}}
{{- $upstreams := dict -}}
{{- if $stdioServers -}}
{{- $upstreams = deepCopy $settings -}}
{{- $_ := set $upstreams "mcpSwitchboard.servers" $stdioServers -}}
{{- $_ := set $upstreams "mcpSwitchboard.tools.maxExposed" 100000 -}}
{{- end -}}
{{- toJson (dict "gateway" $gateway "upstreams" (default nil $upstreams)) -}}
{{- end -}}
