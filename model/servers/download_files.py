"""The download server's files as its drives and page cache see them: where a pair's reads land on
the volume, which of them the page cache spares, and the windows the kernel reads a file in.

``model.servers.download`` simulates the server (its docstring is the model's overview); this is its
file system's side, worked out before a run and handed to the compiled loop
(``model.servers.download_loop``) as arrays:

- Opening a file looks its name up, then reads its inode. 1000 MB of memory cannot hold the metadata
  of two million files, and a leaf or inode page is touched once in a thousand requests while the
  data streams through the page cache in seconds, so none stays cached from one pair to the next.
  The file system is taken as ext3 with hashed directory indexes (``dir_index``, mke2fs's default
  since 2007; the report does not name it): a lookup reads the directory's index root, then the
  leaf block the name hashes to (``Directory``), then the page of the inode table holding the
  inode, kept at the start of the directory's files. The md5 file's name hashes to its own leaf,
  read unless it is the data file's; its inode, the next one, came with the data file's page, and
  its data is read from just after its data file (each was written right after it). The page cache
  reads whole pages, so a file's last read ends on the page boundary where the md5 file's page
  begins, and a drive that read ahead past it serves it from its cache.
- A server whose memory holds some of the data set serves those files from its page cache
  (``data_cached``): the clients pick uniformly at random, so a pick finds its pair there with
  probability page cache / data set on a warm cache, the runs before having been the same
  workload; on a cold one only a file picked earlier in the run. The page cache is what the
  kernel and its daemons leave of memory (``settings.page_cache_B``, as the storage models take
  it). The report's 744 MB of cache against 4.4 TB is one pick in about 5,900, none of the 2,000
  simulated pairs at most seeds.
- The 1024 index roots are another matter: the md5 lookup touches its directory's root again just
  after the data file's, and Linux moves a page referenced twice to its active list, which data
  read once does not evict. What the report does not say is whether the runs started on a dropped
  cache. ``server.page_cache`` reads it two ways (``roots_read``): ``warm``, the point, the runs
  before left every root cached (nothing says the cache was dropped); ``cold``, a run on a dropped
  cache reads a root at its directory's first lookup of the run. The scenario declares both.
- The kernel's read-ahead (Linux's on-demand read-ahead) reads a file in windows: the first sized
  from the first request, each next one larger up to ``read_ahead_KiB``; reaching a window starts
  the read of the next one in the background, so a stream has one window in flight ahead. The
  first window is the exception (``ondemand_readahead``'s initial read-ahead, mm/readahead.c: its
  ``async_size`` is the window less the request, so its ``PG_readahead`` mark is the page just past
  sendfile's 64 KiB pipe): the second window's read starts only when a ``sendfile`` reaches that
  page, after the first window is in, and on a new connection, whose socket takes 16 KiB at first,
  at the worker's second turn at the file (``readahead_mark_B``). Measured against the table this
  costs every file one more read in series: the 1-worker columns 3 to 10 % slower (the "default"
  ones closer, the "optimized" RAID6 one further off).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..settings import PageCache

if TYPE_CHECKING:  # numpy is loaded where a run needs it: a storage scenario never does
    import numpy as np

PAGE_B = PageCache.page_B  # the default page size; a scenario's is its kernel.page_B
SPLICE_PAGES = 16  # sendfile reads through a pipe of 16 pages
# the md5 file as the server reads it: one page (its sum and the file's name, download.MD5_SUM_B,
# on a page of its own); its bytes cross the link (download.pair_wire), but what a run moves is its
# data files, as the report counts them (2,502 x 2,050 KiB is its "5009 MB downloaded", MiB)
MD5_FILE_B = 4096
INODE_B = 256  # an ext3/4 inode as mkfs makes them (the report does not name the file system)
# An ext3 directory entry: 8 bytes and the name, padded to 4. The data files' names are not given;
# Einstein@home's radio-pulsar work units have names of about 48 characters (estimated).
DIRENT_B = 8 + 48
HTREE_LEAF_FILL = (
    0.69  # a leaf split in two when full holds ln 2 of a block on average (hash-ordered inserts)
)


def whole_pages_B(length_B: float, page_B: int = PAGE_B) -> int:
    """What ``length_B`` bytes take on disk and in the page cache: whole pages."""
    return math.ceil(length_B / page_B) * page_B


def read_ahead_windows(
    file_B: int, max_B: int, request_B: int | None = None, page_B: int = PAGE_B
) -> list[tuple[int, int]]:
    """The (offset, length) windows Linux's on-demand read-ahead reads a file in, front to back.

    As ``get_init_ra_size``: the first window is the request rounded up to a power of two, times
    four when that is at most 1/32 of the maximum, times two when at most 1/4, else the maximum;
    as ``get_next_ra_size``: each next window is four times the last below 1/16 of the maximum,
    else twice it, never above the maximum. Windows stop at the end of the file. A request is
    ``sendfile``'s pipe of pages unless ``request_B`` is given. A maximum under a page is read-ahead
    turned off: the kernel then reads the page asked for, one at a time.
    """
    request_B = SPLICE_PAGES * page_B if request_B is None else request_B
    max_B = max(max_B, page_B)
    size = 1 << (max(request_B, page_B) - 1).bit_length()
    if size <= max_B // 32:
        size *= 4
    elif size <= max_B // 4:
        size *= 2
    else:
        size = max_B
    windows, offset = [], 0
    while offset < file_B:
        length = min(size, file_B - offset)
        windows.append((offset, length))
        offset += length
        size = min(size * 4 if size < max_B // 16 else size * 2, max_B)
    return windows


def readahead_mark_B(windows: list[tuple[int, int]], request_B: int) -> int:
    """Where in the first window its read-ahead mark lies: reaching it starts the read of the next.

    As ``ondemand_readahead``'s initial read-ahead: ``async_size`` is the window less the request
    when the window is larger, so the ``PG_readahead`` mark is the page just past the request and
    the next window is read only once the reader has the first and goes on past it; a window no
    larger than the request is merged with the next at once (mark at 0: both read together).
    """
    return request_B if windows[0][1] > request_B else 0


class Directory:
    """Where a file's directory keeps its metadata: the inode table (a data file's inode, then its
    md5 file's) at the start of the directory's files, the hashed index's root after it, and its
    leaf blocks spread over the files, each written as the directory grew. Files are numbered across
    the data set of ``files``, ``slot_B`` apart; the last directory holds what is left of them.
    """

    def __init__(self, files_per_directory: int, files: int, slot_B: int, page_B: int = PAGE_B):
        entries = 2 * files_per_directory  # a data file and its md5 file each
        self.leaves = max(1, math.ceil(entries * DIRENT_B / (page_B * HTREE_LEAF_FILL)))
        self.files_per_directory = files_per_directory
        self.files = files
        self.slot_B = slot_B
        self.page_B = page_B
        self.root_offset_B = whole_pages_B(entries * INODE_B, page_B)

    @property
    def count(self) -> int:
        """How many directories the data set fills (the last may hold fewer files)."""
        return math.ceil(self.files / self.files_per_directory)

    def first_file(self, index: int) -> int:
        """The first file of the directory holding file ``index``."""
        return index // self.files_per_directory * self.files_per_directory

    def start_B(self, index: int) -> int:
        """Where the directory holding file ``index`` begins."""
        return self.first_file(index) * self.slot_B

    def inode_page_B(self, index: int) -> int:
        """The inode-table page holding file ``index``'s inode (and its md5 file's, the next)."""
        return (
            self.start_B(index)
            + (index % self.files_per_directory) * 2 * INODE_B // self.page_B * self.page_B
        )

    def root_B(self, index: int) -> int:
        return self.start_B(index) + self.root_offset_B

    def leaf_B(self, index: int, leaf: int) -> int:
        """A leaf's place: the last page of the slot of the file being written when it was added,
        spread over the files the directory holds."""
        import numpy as np

        held = np.minimum(self.files_per_directory, self.files - self.first_file(index))
        file = leaf * held // self.leaves
        return self.start_B(index) + (file + 1) * self.slot_B - self.page_B

    def places(
        self, rng: np.random.Generator, files: int, pairs: int, root_read: np.ndarray
    ) -> np.ndarray:
        """Where each of ``pairs`` pairs of random files (of ``files``) reads, one row a pair: the
        index root (-1 where ``root_read`` says it is in memory), the data file's leaf, its inode
        page, the md5 file's leaf (-1 when its name hashes to the same one) and the data file's
        start."""
        import numpy as np

        index = rng.integers(files, size=pairs)
        leaf, md5_leaf = rng.integers(self.leaves, size=(2, pairs))
        root = self.root_B(index)
        return np.stack(
            [
                np.where(root_read, root, -1),
                self.leaf_B(index, leaf),
                self.inode_page_B(index),
                np.where(md5_leaf == leaf, -1, self.leaf_B(index, md5_leaf)),
                index * self.slot_B,
            ],
            axis=1,
        ).astype(np.int64)


def roots_read(
    page_cache: str, directories: int, pairs: int, simulated: int, rng: np.random.Generator
) -> np.ndarray:
    """Which of the ``simulated`` pairs read their directory's index root.

    A lookup reads the root, and the md5 file's lookup in the same directory touches it again just
    after: a page referenced twice moves to Linux's active list, which the data streaming once
    through the inactive list does not evict. So a root read once stays for the run. On a cold
    cache the pair at ``k`` of the run's ``pairs`` reads it only if none of the ``k`` before went
    to its directory (probability (1 - 1/directories)^k; the simulated pairs stand for the run's
    evenly); on a warm one no pair does."""
    import numpy as np

    if page_cache == "warm":
        return np.zeros(simulated, bool)
    before = np.arange(simulated) * (pairs / simulated)
    return rng.random(simulated) < (1.0 - 1.0 / directories) ** before


def data_cached(
    page_cache: str,
    cache_B: float,
    pair_B: int,
    files: int,
    pairs: int,
    simulated: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Which of the ``simulated`` pairs find their files in the page cache (``cache_B`` of memory
    holds ``cache_B / pair_B`` pairs' pages).

    The clients pick files uniformly at random, so whatever ``cache_B`` of the data set the cache
    holds, a pick finds its pair there with probability cache_B / (files x pair_B), the hit ratio of
    any cache under independent uniform references. On a warm cache (the point: the runs before
    were the same workload) that holds from the first pair. On a cold one the pair at ``k`` of the
    run's ``pairs`` is there only if one of the pairs before it picked the same file, no further
    back than the last ``held`` different files the cache keeps: m picks reach files x (1 - (1 -
    1/files)^m) different files, so the pair finds its own with probability 1 - (1 -
    1/files)^min(k, m), where m reaches ``held`` (the simulated pairs stand for the run's evenly);
    once k passes m that is held / files, the warm cache's share. A cached pair is taken to have
    all its pages in memory, its directory leaf and inode page too."""
    import numpy as np

    held = cache_B / pair_B
    if held < 1.0:  # not one pair's pages fit
        return np.zeros(simulated, bool)
    if page_cache == "warm":
        return rng.random(simulated) < min(1.0, held / files)
    miss = 1.0 - 1.0 / files
    reach = math.inf if held >= files else math.log(1.0 - held / files) / math.log(miss)
    before = np.minimum(np.arange(simulated) * (pairs / simulated), reach)
    return rng.random(simulated) < 1.0 - miss**before
