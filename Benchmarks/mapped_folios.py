#!/usr/bin/env python3
"""Where a process's file-backed RSS comes from: for each mapped file, its resident pages and the page-cache folios
they belong to (docs/benchmarks.md, issue 33's eleventh round).

On kernels that cache files in large folios (ext4 since 6.x), one touch of a code page maps the folio around it, up
to 1 MB here, so RssFile counts folios, not the pages a process ran. This prints, per file: resident MB, how many
folios those pages lie in, the folios by size, and what RssFile would be if each folio were one 4 kB page.

Usage (root: /proc/<pid>/pagemap's frame numbers and /proc/kpageflags need CAP_SYS_ADMIN):

    python3 Benchmarks/mapped_folios.py PID [PID ...]
"""

import collections
import os
import struct
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
PRESENT = 1 << 63
PFN_MASK = (1 << 55) - 1
COMPOUND_HEAD = 1 << 15
COMPOUND_TAIL = 1 << 16


def mappings(pid):
    """(start, end, path) of every mapping of a file in /proc/<pid>/maps."""
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            if len(fields) == 6 and fields[5].startswith("/"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                yield start, end, fields[5].strip()


def frames(pid, start, end):
    """The page frame number of every resident page in [start, end)."""
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        pagemap.seek(start // PAGE * 8)
        data = pagemap.read((end - start) // PAGE * 8)
    for (entry,) in struct.iter_unpack("<Q", data):
        if entry & PRESENT and entry & PFN_MASK:
            yield entry & PFN_MASK


class PageFlags:
    """/proc/kpageflags, read a frame at a time with a cache: a folio's head and its size."""

    def __init__(self):
        self.file = open("/proc/kpageflags", "rb")
        self.cache = {}

    def flags(self, pfn):
        if pfn not in self.cache:
            self.file.seek(pfn * 8)
            self.cache[pfn] = struct.unpack("<Q", self.file.read(8))[0]
        return self.cache[pfn]

    def folio(self, pfn):
        """(head frame, pages) of the folio holding pfn."""
        head = pfn
        while self.flags(head) & COMPOUND_TAIL:
            head -= 1
        pages = 1
        if self.flags(head) & COMPOUND_HEAD:
            while self.flags(head + pages) & COMPOUND_TAIL:
                pages += 1
        return head, pages


def report(pid, page_flags):
    by_file = collections.OrderedDict()
    for start, end, path in mappings(pid):
        entry = by_file.setdefault(path, {"pages": 0, "folios": {}})
        for pfn in frames(pid, start, end):
            entry["pages"] += 1
            head, pages = page_flags.folio(pfn)
            entry["folios"][head] = pages
    with open(f"/proc/{pid}/status") as status:
        rss = {k: v.strip() for k, v in (line.split(":", 1) for line in status) if k in ("VmRSS", "RssAnon", "RssFile")}
    print(f"pid {pid}: VmRSS {rss.get('VmRSS')}, RssAnon {rss.get('RssAnon')}, RssFile {rss.get('RssFile')}")
    total_pages = total_folios = 0
    for path, entry in sorted(by_file.items(), key=lambda item: -item[1]["pages"]):
        if entry["pages"] == 0:
            continue
        sizes = collections.Counter(entry["folios"].values())
        histogram = ", ".join(f"{count}x{pages * PAGE // 1024}k" for pages, count in sorted(sizes.items(), reverse=True))
        total_pages += entry["pages"]
        total_folios += len(entry["folios"])
        print(f"  {entry['pages'] * PAGE / 1e6:7.1f} MB resident in {len(entry['folios']):5d} folios "
              f"({histogram}) {path}")
    print(f"  {total_pages * PAGE / 1e6:7.1f} MB of files resident in {total_folios} folios; "
          f"one 4 kB page per folio would be {total_folios * PAGE / 1e6:.1f} MB")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    page_flags = PageFlags()
    for pid in argv[1:]:
        report(int(pid), page_flags)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
