"""The Haystack hooks documentation's examples, verbatim, importable by scenarios (`python_path: [".."]`)."""
