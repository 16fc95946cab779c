"""An example Haystack project: the agent's hooks (`hooks`) and an agent factory (`agents`), pinned by the
hookharness scenarios of `scenarios/` on the Haystack engine."""
