{{- define "backup-runbooks.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "backup-runbooks.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "backup-runbooks.selectorLabels" -}}
app.kubernetes.io/name: {{ include "backup-runbooks.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: worker
{{- end }}

{{- define "backup-runbooks.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "backup-runbooks.selectorLabels" . }}
app.kubernetes.io/version: {{ include "backup-runbooks.tag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "backup-runbooks.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "backup-runbooks.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "backup-runbooks.tag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{/* The worker's build ID: versioning.buildId, else the image tag, which must then name one build. */}}
{{- define "backup-runbooks.buildId" -}}
{{- $id := default (include "backup-runbooks.tag" .) .Values.versioning.buildId }}
{{- if and (not .Values.versioning.buildId) (eq $id "latest") }}
{{- fail "image.tag 'latest' names no single build: set image.tag to a release, or versioning.buildId" }}
{{- end }}
{{- $id }}
{{- end }}

{{- define "backup-runbooks.claimName" -}}
{{- default (printf "%s-shared" (include "backup-runbooks.fullname" .)) .Values.persistence.existingClaim }}
{{- end }}

{{/* Where the volumes and secrets are mounted in the container. */}}
{{- define "backup-runbooks.dataDir" -}}/home/node/.runbooks{{- end }}
{{- define "backup-runbooks.sharedDir" -}}/var/lib/runbooks{{- end }}
{{- define "backup-runbooks.secretsDir" -}}/etc/runbooks{{- end }}
