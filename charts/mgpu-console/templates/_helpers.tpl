{{/* The release's name for every object, at most 63 characters (a DNS label). */}}
{{- define "mgpu-console.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "mgpu-console.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "mgpu-console.labels" -}}
{{ include "mgpu-console.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mgpu-console
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "mgpu-console.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "mgpu-console.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Cluster-scoped names carry the namespace: two releases of one name must not share a role. */}}
{{- define "mgpu-console.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "mgpu-console.fullname" .) -}}
{{- end -}}

{{/* "true" when operators bring their own identity, so the console's account only reads. */}}
{{- define "mgpu-console.perUserAuth" -}}
{{- if has .Values.auth.mode (list "kubernetes" "oidc") }}true{{ end -}}
{{- end -}}

{{- define "mgpu-console.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The Secret of the OIDC client secret or the shared token, when the chart keeps one. */}}
{{- define "mgpu-console.secretName" -}}
{{- printf "%s-auth" (include "mgpu-console.fullname" .) -}}
{{- end -}}

{{/*
The allowed origins: the configured ones and every Ingress host (https when TLS covers it), so
the console answers under the names browsers reach it by.
*/}}
{{- define "mgpu-console.allowedOrigins" -}}
{{- $origins := list -}}
{{- range .Values.allowedOrigins }}{{ $origins = append $origins . }}{{ end -}}
{{- if .Values.ingress.enabled -}}
{{- $tlsHosts := list -}}
{{- range .Values.ingress.tls }}{{ $tlsHosts = concat $tlsHosts (default (list) .hosts) }}{{ end -}}
{{- range .Values.ingress.hosts -}}
{{- $scheme := ternary "https" "http" (has .host $tlsHosts) -}}
{{- $origins = append $origins (printf "%s://%s" $scheme .host) -}}
{{- end -}}
{{- end -}}
{{- $origins | uniq | join "," -}}
{{- end -}}

{{/* Pod and container security of the console and its test Pod: non-root, nothing to escalate to. */}}
{{- define "mgpu-console.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "mgpu-console.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}
