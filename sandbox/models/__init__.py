"""Models the sandbox can ask, all optional: a client for OpenAI- and Anthropic-compatible endpoints
with a reply cache (``client``), a model judge for ``judge`` checks (``judge``), and the HTTP helpers
the computer-use agents share (``http``). Nothing in ``make test`` or ``sandbox validate`` needs one."""

from .client import ModelClient, ModelConfig, ModelError, ModelReply, ModelUnavailable, default_cache_dir, parse_json_reply
from .judge import JudgeReplyError, ModelJudge

__all__ = ["JudgeReplyError", "ModelClient", "ModelConfig", "ModelError", "ModelJudge", "ModelReply", "ModelUnavailable",
           "default_cache_dir", "parse_json_reply"]
