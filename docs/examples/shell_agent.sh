#!/usr/bin/env bash
# A shell agent's session on a CRM task: start the episode, read the task, find the deal, close it,
# grade the result.   bash docs/examples/shell_agent.sh
set -euo pipefail
start=$(sandbox app start --task crm.opportunity-close-won --seed 2)
eval "$start"                                   # exports SANDBOX_WORLD, SANDBOX_PERSONA, SANDBOX_TASK...
echo "$start" | grep '^#'                       # the task, as the user wrote it
deal=$(echo "$start" | sed -n 's/^# .*"\(.*\)".*/\1/p')
sandbox app tools crm | grep opportunity
sandbox app crm opportunity list --q "$deal"
deal_id=$(sandbox app crm opportunity list --q "$deal" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["items"][0]["id"])')
sandbox app crm opportunity update --record-id "$deal_id" --stage "Closed Won" --json | grep '"stage"'
sandbox app verify
