"""An agent factory in the shape real projects use, for the Haystack engine's example scenarios."""
