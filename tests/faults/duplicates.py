"""Duplicates the schema does not forbid: chat calls per question, outbox messages per job, library entries.

One result row and one answer per question are unique in the schema, so
counting them proves little. What nothing forbids is asking the model twice,
publishing a job twice, or saving an entry twice; these are read from the
fake LLM server's own request log and from the tables.

The exact expectation for chat calls, from rfp_manager.services.batch: a
delivery of a job asks each question it has not yet recorded as succeeded
once (`questions_to_do`, `run_batch`; the fake makes no transient errors here,
so `chat_with_retries` never repeats a call). A question is asked again only
by a later delivery, and only if it was in flight (asked, its result row not
yet written) when the earlier delivery died. A case marks the moment between
two deliveries with `ChatLog.cut()`; the log is read delivery by delivery.
"""

import re
from collections import Counter
from dataclasses import dataclass

from answer_library.models import Entry
from jobs.models import OutboxMessage
from rfp_manager.models import JobQuestionResult, RFPBatchJob

CHAT = "/v1/chat/completions"
QUESTION_LINE = re.compile(r"^Question: (.*)$", re.MULTILINE)  # the responder prompt's last line


def questions_done() -> set[str]:
    """The text of every question with a succeeded result row now (the fault cases' question texts are unique)."""
    succeeded = JobQuestionResult.objects.filter(outcome=JobQuestionResult.Outcome.SUCCEEDED)
    return set(succeeded.values_list("question__text", flat=True))


@dataclass(frozen=True)
class Cut:
    log_index: int  # the fake's log up to here is the earlier delivery's
    done: frozenset[str]  # the questions recorded as succeeded by then


class ChatLog:
    """The fake LLM's chat calls, by question, delivery by delivery."""

    def __init__(self, fake_llm):
        self.fake = fake_llm
        self.start = len(fake_llm.requests)  # what the log held before: not this case's
        self.cuts: list[Cut] = []

    def cut(self, done: set[str] | None = None) -> None:
        """Between two deliveries (the earlier one dead, the next not started): where the log is divided.

        `done`: the questions succeeded by then, when the database cannot be read at the cut (read earlier).
        A request the dead delivery sent just before it died is read first, so it counts as that delivery's.
        """
        self.fake.wait_until_read()
        self.cuts.append(Cut(len(self.fake.requests), frozenset(questions_done() if done is None else done)))

    def deliveries(self) -> list[Counter]:
        """Calls per question text, one Counter per delivery (between the cuts)."""
        bounds = [self.start, *(cut.log_index for cut in self.cuts), None]
        return [_asked(self.fake.requests[start:end]) for start, end in zip(bounds, bounds[1:], strict=False)]

    def calls(self) -> int:
        return sum(sum(asked.values()) for asked in self.deliveries())

    def asked_twice_by_one_delivery(self) -> list[str]:
        return sorted(q for asked in self.deliveries() for q, n in asked.items() if n > 1)

    def asked_again_after_done(self) -> list[str]:
        """Questions a delivery asked although an earlier one had recorded them as succeeded."""
        deliveries = self.deliveries()
        return sorted(
            {q for k, cut in enumerate(self.cuts) for later in deliveries[k + 1 :] for q in later if q in cut.done}
        )

    def in_flight_at_cuts(self) -> list[int]:
        """Per cut: questions the delivery before it asked without recording them (lost with it, asked again)."""
        deliveries = self.deliveries()
        return [len(set(deliveries[k]) - cut.done) for k, cut in enumerate(self.cuts)]

    def asked_more_than_once(self) -> list[str]:
        total = Counter()
        for asked in self.deliveries():
            total.update(asked)
        return sorted(q for q, n in total.items() if n > 1)


def _asked(requests: list[dict]) -> Counter:
    return Counter(
        match.group(1) for r in requests if r["path"] == CHAT and (match := QUESTION_LINE.search(r.get("prompt") or ""))
    )


def outbox_messages_per_job(jobs) -> dict[str, int]:
    """How many outbox messages each job's dispatch wrote (one each: a redelivery or a retry publishes no new one)."""
    subjects = OutboxMessage.objects.filter(
        subject_model=RFPBatchJob._meta.label_lower, subject_id__in=[job.pk for job in jobs]
    )
    counts = Counter(subjects.values_list("subject_id", flat=True))
    return {str(job.pk): counts[job.pk] for job in jobs}


def check_no_duplicates(case, chat: ChatLog, jobs) -> None:
    """The duplicate checks every batch fault case makes, as rows of its record."""
    case.check("questions asked twice by one delivery (fake LLM's request log)", chat.asked_twice_by_one_delivery(), [])
    case.check("questions asked again after a delivery had recorded them done", chat.asked_again_after_done(), [])
    case.check(
        "outbox messages per job (one per dispatch)", outbox_messages_per_job(jobs), {str(j.pk): 1 for j in jobs}
    )
    case.check("answer-library entries written (a responder job only reads the library)", Entry.objects.count(), 0)
    case.figure("chat calls", chat.calls())
    case.figure("questions asked again by a later delivery (in flight when theirs died)", chat.asked_more_than_once())
