"""Two hooks whose order matters, for `hookharness explore --engine haystack` (../explore/)."""
