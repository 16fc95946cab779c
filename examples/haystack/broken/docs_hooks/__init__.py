"""Deliberately broken copies of the docs' example hooks: each scenario of ../scenarios must fail with them."""
