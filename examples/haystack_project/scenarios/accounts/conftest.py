"""What the scenarios of this folder take from pytest: objects a file cannot hold.

`hookharness_hook_context` puts a live database connection into each run's `hook_context` (beside the file's own
`run.hook_context` entries); `hookharness_hooks` registers `personalise` under a name the scenarios use as
`custom: personalise`; `hookharness_agents` hands over the project's Agent, built as in production, for
`agent: {custom: support}` (its chat generator answers from the scenario's `model`).
"""

import pytest
from haystack_project.accounts import open_accounts, personalise
from haystack_project.hooks import make_agent


@pytest.fixture
def accounts():
    connection = open_accounts()
    connection.executemany("INSERT INTO accounts VALUES (?, ?)", [("u1", "gold"), ("u2", "trial")])
    yield connection
    connection.close()


@pytest.fixture
def hookharness_hook_context(accounts):
    return {"accounts": accounts}


@pytest.fixture
def hookharness_hooks():
    return {"personalise": personalise}


@pytest.fixture
def hookharness_agents():
    return {"support": make_agent()}
