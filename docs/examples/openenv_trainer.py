"""Work one CUA Sandbox task through OpenEnv's own client, as a trainer's rollout would.

Start the server first (`sandbox env-server --port 8000`), then `python docs/examples/openenv_trainer.py`.
The task allows both interfaces: the agent clicks and calls the apps' tools in one world.
"""

from __future__ import annotations

import json

from openenv.core import GenericEnvClient


def rollout(base_url: str = "http://localhost:8000", seed: int = 0) -> tuple[float, dict]:
    with GenericEnvClient(base_url=base_url, message_timeout_s=120).sync() as env:
        result = env.reset(task_id="crm.opportunity-close-won", seed=seed, tools=True, screenshot="jpeg")
        obs = result.observation  # screenshot (base64 JPEG), url, title, instruction, tools...
        name = obs["instruction"].split('"')[1]  # the opportunity the instruction names
        # A tool call: search the CRM as the task's persona (the result comes back as text).
        found = env.step({"action": "tool_call", "name": "crm_list_opportunity", "arguments": {"q": name}})
        opp = json.loads(found.observation["tool_result"])["items"][0]
        # GUI actions on the same world: open the record, scroll, look.
        env.step({"action": "goto", "url": f"http://crm.localhost/opportunities/{opp['id']}"})
        env.step({"action": "scroll", "x": 640, "y": 400, "direction": "down", "amount": 3})
        # A bad action is reported in the observation; the episode goes on.
        bad = env.step({"action": "left_click", "x": 5000, "y": 10})
        assert "outside the screen" in bad.observation["last_action_error"]
        env.step({"action": "tool_call", "name": "crm_update_opportunity",
                  "arguments": {"record_id": opp["id"], "stage": "Closed Won"}})
        result = env.step({"action": "answer", "text": "The opportunity is Closed Won."})
        assert result.done
        return result.reward, result.observation["verdict"]  # passed, score, reason, checks


if __name__ == "__main__":
    reward, verdict = rollout()
    print(f"reward {reward}: {verdict['reason']}")
