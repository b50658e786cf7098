"""A refused file, said in the uploader's words; the technical reason goes to the log only.

"This PDF cannot be read (startxref not found)" tells a person neither what is wrong nor what to
do, and the exception's name ("PdfStreamError") even less. Every import and upload refusal is
raised through `refusal()`: the message names the problem and the next step, and the log keeps
the library's own words for whoever runs the service.
"""

import logging

logger = logging.getLogger("spelunker.refusals")


def technical_reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def refusal(error_class: type[Exception], message: str, exc: BaseException | None = None, **context):
    """`error_class(message)`, the technical reason (`exc`, or the context given) logged; raise it `from exc`."""
    logger.warning(
        "Refused a file: %s Technical reason: %s",
        message,
        technical_reason(exc) if exc is not None else ", ".join(f"{k}={v}" for k, v in context.items()),
        extra={"refusal": message, **context},
    )
    return error_class(message)
