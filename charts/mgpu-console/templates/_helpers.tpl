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

{{/*
The replica count: replicaCount when it is a number, else 2 with a sign-in (a rolling upgrade or
a drained node then leaves one serving, and sessions hold on either) and 1 with auth.mode none.
*/}}
{{- define "mgpu-console.replicas" -}}
{{- $count := .Values.replicaCount -}}
{{- if or (kindIs "invalid" $count) (eq (toString $count) "") -}}
{{- ternary 1 2 (eq .Values.auth.mode "none") -}}
{{- else -}}
{{- int $count -}}
{{- end -}}
{{- end -}}

{{/*
The prefix of the console's own objects (MGPU_INSTANCE_NAME): the full name, cut to the 42
characters the console accepts (a DNS label, so no dots) for `<prefix>-revoked-sessions` to fit.
*/}}
{{- define "mgpu-console.instanceName" -}}
{{- include "mgpu-console.fullname" . | replace "." "-" | trunc 42 | trimSuffix "-" -}}
{{- end -}}

{{/* The Secret that holds the key sessions are sealed with: the chart's or session.existingSecret. */}}
{{- define "mgpu-console.sessionKeySecretName" -}}
{{- default (printf "%s-session-key" (include "mgpu-console.fullname" .)) .Values.session.existingSecret -}}
{{- end -}}

{{/* Where the key file is mounted; MGPU_SESSION_KEY_FILE names the file in it. */}}
{{- define "mgpu-console.sessionKeyDir" -}}
/etc/mgpu-console/session-key
{{- end -}}

{{/*
Wrong sign-ins per address per minute that each replica allows: the limit over the replicas,
rounded up, at least 1. Each replica counts on its own, so the cluster-wide limit stays about
auth.signInAttemptsPerMinute whichever replica a client reaches.
*/}}
{{- define "mgpu-console.signInAttemptsPerReplica" -}}
{{- $replicas := max 1 (int (include "mgpu-console.replicas" .)) -}}
{{- $limit := int .Values.auth.signInAttemptsPerMinute -}}
{{- max 1 (div (add $limit (sub $replicas 1)) $replicas) -}}
{{- end -}}
