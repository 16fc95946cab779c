"""A hook that needs a database client: what a scenario file cannot hold, so a pytest fixture hands it over.

The Haystack hooks documentation's advice for request-scoped resources: put them in `hook_context`
(`agent.run(hook_context={...})`) and read them with `state.data["hook_context"]`, never `state.get`, which
deep-copies and fails on a connection. `personalise` (before_llm) looks the customer up once, before the first model
call, and tells the model their plan.
"""

import sqlite3

from haystack.components.agents.state import State, replace_values
from haystack.dataclasses import ChatMessage
from haystack.hooks import hook


def open_accounts(path: str = ":memory:") -> sqlite3.Connection:
    """The accounts database (a table `accounts(user_id, plan)`)."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE IF NOT EXISTS accounts (user_id TEXT PRIMARY KEY, plan TEXT NOT NULL)")
    return connection


@hook
def personalise(state: State) -> None:
    # before_llm: once, before the first model call.
    if state.get("step_count") != 0:
        return
    context = state.data["hook_context"]
    row = context["accounts"].execute(
        "SELECT plan FROM accounts WHERE user_id = ?", (context["user_id"],)
    ).fetchone()
    plan = row[0] if row else "free"
    print(f"customer {context['user_id']}: {plan}")
    state.set(
        "messages",
        [ChatMessage.from_system(f"The customer is on the {plan} plan."), *state.data["messages"]],
        handler_override=replace_values,
    )
