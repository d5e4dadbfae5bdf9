#!/bin/sh
# The namespace and the runbooks' search attributes (contracts/search-attributes.ts); safe to run again.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:?}"
temporal operator namespace describe -n "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 ||
  temporal operator namespace create -n "$TEMPORAL_NAMESPACE" --retention 7d
for name in RunbookKind RunbookResource ApprovalStatus; do
  if temporal operator search-attribute list -n "$TEMPORAL_NAMESPACE" | grep -qw "$name"; then
    echo "search attribute $name exists"
  else
    temporal operator search-attribute create -n "$TEMPORAL_NAMESPACE" --name "$name" --type Keyword
  fi
done
