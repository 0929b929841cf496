"""Every in-memory map keyed by chat, user, table or job is bounded or freed when its owner goes, so a bot
that has served thousands of groups holds what its live tables need (bench/soak.py measures it over time)."""

from __future__ import annotations

from bot.timers import JobScheduler
from tests.bot.conftest import Harness
from tests.bot.players import GROUP, open_table, press_and_wait, table_id


async def test_the_timers_index_holds_pending_jobs_only(harness: Harness) -> None:
    """Computer players play a game out: each of their turns is a job that runs and is gone; once the game
    has ended, the index holds what is still to run (the rematch's expiry), not one entry per job ever set."""
    fake = harness.fake
    service = harness.deps.service
    lobby = await open_table(harness, ["Ann"])
    tid = table_id(lobby)
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{tid}:bot")
    await press_and_wait(fake, 1, GROUP, lobby.message_id, f"L:{tid}:start")
    fake.send(1, GROUP, "/leave")  # a computer player takes Ann's seat: nobody plays, it is played at once
    await fake.wait_for(
        lambda: any("Game over" in m.text for m in fake.bot_messages(GROUP)), 60, "the result"
    )
    await harness.deps.outbox.idle()
    scheduler = service.env.scheduler
    assert isinstance(scheduler, JobScheduler)
    assert harness.app.job_queue is not None
    jobs = harness.app.job_queue.jobs()
    pending = [job.name for job in jobs if not job.removed and job.name and job.name.endswith(f":{tid}")]
    assert scheduler.pending() == len(pending) <= 1, pending
