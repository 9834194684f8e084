#!/bin/sh
# Creates the namespace and registers the agent's typed search attributes (idempotent).
set -eu
namespace=${DEFAULT_NAMESPACE:-default}
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
  echo "waiting for Temporal at $TEMPORAL_ADDRESS"; sleep 2
done
temporal operator namespace describe --namespace "$namespace" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1 \
  || temporal operator namespace create --namespace "$namespace" --address "$TEMPORAL_ADDRESS"
for attribute in AgentTurn=Int AgentStatus=Keyword AgentLastTransition=Keyword AgentForkedFrom=Keyword AgentHost=Keyword AgentCostUsd=Double AgentRateLimitedUntil=Datetime; do
  temporal operator search-attribute create --namespace "$namespace" --address "$TEMPORAL_ADDRESS" \
    --name "${attribute%%=*}" --type "${attribute#*=}" 2>/dev/null || true
done
echo "Namespace $namespace and search attributes are ready"
