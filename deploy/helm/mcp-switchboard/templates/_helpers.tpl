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

{{/* The Redis the replicas share: this release's, one named, or none. */}}
{{- define "switchboard.redisUrl" -}}
{{- if .Values.redis.enabled -}}
redis://{{ include "switchboard.name" . }}-redis:6379/0
{{- else -}}
{{- .Values.redis.url -}}
{{- end -}}
{{- end -}}
