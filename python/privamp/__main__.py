"""The privamp command from Python: ``python -m privamp verify ...``, and the ``privamp`` command a wheel installs.
It runs the command line shipped in the package (bin/privamp) with the same arguments, in place of this process."""
import os
import sys

from . import _command


def main():
    command = _command()
    os.execv(command, [command] + sys.argv[1:])


if __name__ == "__main__":
    main()
