"""hookharness: test Haystack hooks, tools and agents against scripted scenarios."""
