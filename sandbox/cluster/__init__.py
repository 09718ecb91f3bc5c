"""Runs and validations on a Ray cluster: one actor per node (or per few cores), each owning a
Chromium, an app host, a world store and an episode pool; the driver hands out work items from a pull
queue and retries the items of an actor that dies.

``ray`` is an optional dependency (``pip install 'cua-sandbox[ray]'``); nothing here imports it until
a run asks for a cluster.
"""

from .dispatch import Attempt, dispatch
from .node import Node
from .options import RayOptions, RayUnavailable, connect, ray_options, start_nodes, stop_nodes

__all__ = ["Attempt", "Node", "RayOptions", "RayUnavailable", "connect", "dispatch", "ray_options", "start_nodes", "stop_nodes"]
