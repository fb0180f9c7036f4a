"""A typed client (sync and asyncio) for the KernelJudge judging service, ``kjudge serve``.

    from kjudge_client import Client, SubmissionRequest

    client = Client("http://127.0.0.1:8080")        # the token from $KJUDGE_TOKEN
    items = client.submit_batch([SubmissionRequest.pack("2025-1", "CUDA/10", files,
                                                        mode="benchmark")])
    rewards = client.rewards([i.id for i in items if isinstance(i, Accepted)], timeout=600)

docs/service.md and docs/openapi.yaml describe the service; clients/python/README.md this
package.
"""
from .async_client import AsyncClient
from .client import Client
from .errors import (ApiError, BadRequest, Busy, Conflict, ConnectionFailed, Forbidden,
                     KjudgeError, NotFinished, NotFound, OverLimit, Unauthorized, WaitTimeout)
from .models import (Accepted, BatchItem, CheatFlag, Health, Leaderboard, LeaderboardSummary,
                     RankingEntry, Refused, Reward, Run, Speedup, Submission)
from .request import (Mode, Priority, SubmissionRequest, pack_target, read_solution_dir,
                      task_target)

__version__ = "1.0.0"

__all__ = [
    "Accepted", "ApiError", "AsyncClient", "BadRequest", "BatchItem", "Busy", "CheatFlag",
    "Client", "Conflict", "ConnectionFailed", "Forbidden", "Health", "KjudgeError", "Leaderboard",
    "LeaderboardSummary", "Mode", "NotFinished", "NotFound", "OverLimit", "Priority",
    "RankingEntry", "Refused", "Reward", "Run", "Speedup", "Submission", "SubmissionRequest",
    "Unauthorized", "WaitTimeout", "pack_target", "read_solution_dir", "task_target",
]
