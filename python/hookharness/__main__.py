"""`python -m hookharness ARGS`: the `hookharness` command, with this
interpreter as the Haystack engine's."""

import sys

from hookharness import BinaryNotFound, run


def main():
    try:
        return run(sys.argv[1:]).returncode
    except BinaryNotFound as error:
        print(f"error: {error}", file=sys.stderr)
        return 4
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
