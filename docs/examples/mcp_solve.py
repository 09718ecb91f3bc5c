"""Solve a CRM task through MCP: start `sandbox mcp` over stdio, read the task, call the tools, read the grade.

    python docs/examples/mcp_solve.py
"""

import asyncio
import re
import sys

from mcp import Client, StdioServerParameters

TASK = "crm.opportunity-close-won"


async def main() -> None:
    # --grade adds task_verdict, for trying tasks by hand; leave it out when evaluating an agent.
    server = StdioServerParameters(command=sys.executable, args=["-m", "sandbox.cli", "mcp", "--task", TASK, "--grade"])
    async with Client(server, read_timeout_seconds=120) as client:
        task = client.instructions.split("Your task: ", 1)[1]
        print("task:", task)
        tools = (await client.list_tools()).tools
        print(f"{len(tools)} tools, e.g. {', '.join(t.name for t in tools[:3])}")
        name = re.search(r'"(.+?)"', task).group(1)  # the task quotes the deal's name
        found = await client.call_tool("crm_list_opportunity", {"q": name})
        deal = next(d for d in found.structured_content["items"] if d["name"] == name)
        done = await client.call_tool("crm_update_opportunity", {"record_id": deal["id"], "stage": "Closed Won"})
        print("stage:", done.structured_content["stage"], "probability:", done.structured_content["probability"])
        verdict = (await client.call_tool("task_verdict", {})).structured_content
        print("verdict:", "passed" if verdict["passed"] else "failed", verdict["score"], "-", verdict["reason"])


if __name__ == "__main__":
    asyncio.run(main())
