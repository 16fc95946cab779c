"""The user's own code in a scenario: `python:` objects, hooks made from them, and error texts.

A `python: "module:attribute"` hook entry names one of:
- a `FunctionHook` (what `@hook` makes) or any hook instance (an object with `run(state)`): used as it is;
- a class: called with the entry's `args` and `models` (scripted generators) as keyword arguments;
- a function: with `args` or `models`, a factory called with them; without, a plain `def f(state)` is wrapped in a
  `FunctionHook` (as `@hook` would), anything else is called as a factory.
"""

from __future__ import annotations

import functools
import inspect
import re
import traceback
from typing import Any

from haystack.hooks import FunctionHook

from .capture import DEFAULT_LIMIT, LIMIT_ENV, limit_from_env
from .errors import ScenarioAbort, ScenarioRunError
from .sandbox import is_user_file

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def hook_name(hook: Any) -> str:
    """A hook's trace name when the scenario gives none: its `__name__` (a FunctionHook's function's), else its
    class name."""
    if isinstance(hook, FunctionHook):
        function = hook.function or hook.async_function
        name = getattr(function, "__name__", None)
        if name:
            return name
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else type(hook).__name__


def last_user_frame(exception: BaseException) -> traceback.FrameSummary | None:
    """The innermost traceback frame in user code. Its source line is not read (`lookup_line=False`): the error
    texts name the file, line and function only, and reading sources costs more than a whole scenario's run."""
    frames = [(tb.tb_frame.f_code, tb.tb_lineno) for tb in _walk(exception.__traceback__)]
    for code, lineno in reversed(frames):
        if is_user_file(code.co_filename):
            return traceback.FrameSummary(code.co_filename, lineno, code.co_name, lookup_line=False)
    return None


def _walk(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


@functools.cache
def error_limit() -> int:
    """The limit as the worker started with it (user code changing the variable later changes nothing)."""
    try:
        return limit_from_env()
    except ValueError:  # the worker refuses to start with a bad value; never here
        return DEFAULT_LIMIT


def _capped(text: str) -> str:
    """An exception's text up to the output limit (`HOOKHARNESS_OUTPUT_LIMIT`, the cap of what one call prints), so
    that a message of 50 MB does not reach the record, and three times over a JUnit report, whole."""
    limit = error_limit()
    if len(text) <= limit:
        return text
    return f"{text[:limit]}[hookharness: the error's text cut at {limit} characters; set {LIMIT_ENV} to keep more]"


def error_text(exception: BaseException) -> str:
    """The text of an error: Haystack's (or the harness's) `str(exception)`; for an exception raised in user code,
    also its type and the last frame of user code. Memory addresses are dropped (outcomes must not vary)."""
    text = _ADDRESS.sub("", _capped(str(exception)))
    if isinstance(exception, (ScenarioRunError, ScenarioAbort)):
        return text
    if isinstance(exception, SystemExit):
        frame = last_user_frame(exception)
        where = f" at {frame.filename}:{frame.lineno} in {frame.name}" if frame is not None else ""
        return f"the code called sys.exit({exception.code!r}){where}; the engine ends the scenario, not the worker"
    frame = last_user_frame(exception)
    if frame is None:
        return text
    said = f": {text}" if text else ""
    return f"{type(exception).__name__}{said} (at {frame.filename}:{frame.lineno} in {frame.name})"


class UserCodeError(Exception):
    """Importing or calling the user's code failed before the run: the text names the entry and the fix."""


def resolve(target: str, where: str) -> Any:
    from .scripted import import_object

    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise UserCodeError(f"{where}: `{target}` is not `module:attribute`; write e.g. `my_pkg.hooks:my_hook`")
    try:
        return import_object(target)
    except ModuleNotFoundError as e:
        raise UserCodeError(
            f"{where}: cannot import `{module_name}` ({type(e).__name__}: {e}); put the folder that holds it in the "
            "scenario's `python_path` (relative to the scenario file)"
        ) from e
    except AttributeError as e:
        raise UserCodeError(f"{where}: `{module_name}` has no `{attribute}` ({e})") from e
    except Exception as e:
        raise UserCodeError(f"{where}: importing `{module_name}` failed: {error_text(e)}") from e


def _is_state_function(value: Any) -> bool:
    try:
        parameters = list(inspect.signature(value).parameters.values())
    except (TypeError, ValueError):
        return False
    return len(parameters) == 1 and (parameters[0].name == "state" or "State" in str(parameters[0].annotation))


def call(value: Any, kwargs: dict, where: str) -> Any:
    try:
        return value(**kwargs)
    except (ScenarioAbort, ScenarioRunError):
        raise
    except (Exception, SystemExit) as e:
        raise UserCodeError(f"{where}: calling `{getattr(value, '__qualname__', value)}` failed: {error_text(e)}") from e


def make_hook(value: Any, kwargs: dict, given: bool, where: str) -> Any:
    """The hook object a `python:` entry names (see the module docstring)."""
    if isinstance(value, FunctionHook) or (not inspect.isclass(value) and not callable(value)):
        hook = value
    elif not inspect.isclass(value) and hasattr(value, "run") and not inspect.isroutine(value):
        hook = value  # a hook instance that is also callable
    elif inspect.isclass(value):
        hook = call(value, kwargs, where)
    elif not given and _is_state_function(value):
        hook = FunctionHook(function=value) if not inspect.iscoroutinefunction(value) else FunctionHook(async_function=value)
    else:
        hook = call(value, kwargs, where)
    if not callable(getattr(hook, "run", None)):
        raise UserCodeError(
            f"{where}: `{getattr(value, '__qualname__', value)}` gave {type(hook).__name__}, not a hook (an object "
            "with `run(state)`): name a @hook function, a hook instance, or a class or factory that returns one"
        )
    return hook
