"""Failures the worker itself decides: a scenario's script and the run disagree, or the sandbox refused something."""


class ScriptedError(Exception):
    """What a script's `error: MESSAGE` entry raises (a model reply, a tool result, a summary): its text is MESSAGE."""


class ScenarioRunError(Exception):
    """A failure caused by the scenario's script itself (an exhausted model or tool script, an unscripted call).

    `kind` is the RunError kind the record reports (`run`, `generator`, `tool`); `context` its extra fields.
    """

    def __init__(self, message: str, kind: str = "run", **context) -> None:
        super().__init__(message)
        self.kind = kind
        self.context = context


class ScenarioAbort(BaseException):
    """A failure of the scenario's script that ends the run even where Haystack or user code catches `Exception`.

    Raised by a scripted model or summarizer asked past its last reply, by an unscripted generator call and by a
    connection attempt: user code (`SummarizationCompactor`, a hook with `except Exception`) must not swallow what
    the scenario contract makes the run's error. Not an `Exception`, so nothing in Haystack catches it; the worker
    reports it as the run's error.
    """

    def __init__(self, message: str, kind: str = "run", **context) -> None:
        super().__init__(message)
        self.kind = kind
        self.context = context
