"""A deliberately broken copy of the research pack: its scenario must fail with it."""
