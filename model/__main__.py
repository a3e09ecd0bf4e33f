import os
import sys

from .cli import main

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:  # the reader of our output (head, less) went away: stop quietly
    os.dup2(
        os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno()
    )  # so the flush at exit cannot fail again
    status = 1
sys.exit(status)
