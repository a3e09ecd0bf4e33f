import os
import sys

from .errors import INTERRUPTED_STATUS

try:
    from .cli import main  # the models' imports take a second or two: a Ctrl-C may come here

    status = main()
    sys.stdout.flush()
except KeyboardInterrupt:  # before a command's own handling began (cli.main handles the rest)
    command = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "model"
    print(f"{command}: interrupted", file=sys.stderr)
    status = INTERRUPTED_STATUS
except BrokenPipeError:  # the reader of our output (head, less) went away: stop quietly
    os.dup2(
        os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno()
    )  # so the flush at exit cannot fail again
    status = 1
sys.exit(status)
