import errno
import os
import sys

from .errors import INTERRUPTED_STATUS

# what a write to standard output fails with where the file or device behind it takes no more
UNWRITABLE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}

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
except OSError as exc:
    if exc.errno not in UNWRITABLE or exc.filename is not None:  # a file read, not our output
        raise
    # the output could not be written (a full disk behind > report.txt): said in one line
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    command = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "model"
    print(f"{command}: its output could not be written: {exc.strerror}", file=sys.stderr)
    status = 1
sys.exit(status)
