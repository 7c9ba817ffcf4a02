#!/usr/bin/env python3
"""Tests of scripts/module-graph on the fixture crate trees in fixtures/: the exact report
and exit code for a tree with three planted file circles (through a nested folder, through
`NAME.rs` beside `NAME/`, through a `#[path]` module), for the same tree without them, and for
a tree rustc could not read.

    python3 scripts/module-graph-test/test.py
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(ROOT, "scripts", "module-graph")


def run(*args):
    """Runs the check from the repository root on the fixtures named: (exit code, stdout, stderr)."""
    srcs = [f"scripts/module-graph-test/fixtures/{a}/src" for a in args]
    done = subprocess.run([sys.executable, CHECK, *srcs], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


CIRCLES = """\
scripts/module-graph-test/fixtures/circles/src: 10 files, 7 imports between them, 3 file circle(s); 5 top-level modules, 2 module circle(s)
   0 store        imports -
   1 batch        imports codec
   1 clock        imports shim
   1 codec        imports batch
   1 shim         imports clock
  CIRCLE of 2 files: batch/wire.rs -> codec.rs -> batch/wire.rs
    batch/wire.rs -> codec.rs: encode (line 2)
    codec.rs -> batch/wire.rs: Frame (line 8)
  CIRCLE of 2 files: clock.rs -> shim_impl.rs -> clock.rs
    clock.rs -> shim_impl.rs: epoch (line 4)
    shim_impl.rs -> clock.rs: Tick (line 3)
  CIRCLE of 2 files: store/cache.rs -> store/disk/page.rs -> store/cache.rs
    store/cache.rs -> store/disk/page.rs: Page (line 1)
    store/disk/page.rs -> store/cache.rs: Cache (line 5)
  MODULE CIRCLE of 2 top-level modules: batch -> codec -> batch
    batch -> codec: batch/wire.rs -> codec.rs
    codec -> batch: codec.rs -> batch/wire.rs
  MODULE CIRCLE of 2 top-level modules: clock -> shim -> clock
    clock -> shim: clock.rs -> shim_impl.rs
    shim -> clock: shim_impl.rs -> clock.rs
"""

CLEAN = """\
scripts/module-graph-test/fixtures/clean/src: 10 files, 4 imports between them, 0 file circle(s); 5 top-level modules, 0 module circle(s)
  warning: store/stray.rs: no module declares this file, not read
   0 clock        imports -
   0 codec        imports -
   0 store        imports -
   1 batch        imports codec
   1 shim         imports clock
"""

DOT = """\
digraph "scripts/module-graph-test/fixtures/clean/src" {
  "batch/wire.rs" -> "batch.rs";
  "batch/wire.rs" -> "codec.rs";
  "shim_impl.rs" -> "clock.rs";
  "store/cache.rs" -> "store/disk/page.rs";
}
"""


class ModuleGraph(unittest.TestCase):
    maxDiff = None

    def test_planted_circles_are_reported_with_the_names_that_tie_them(self):
        self.assertEqual(run("circles"), (1, CIRCLES, ""))

    def test_the_tree_without_them_passes(self):
        self.assertEqual(run("clean"), (0, CLEAN, ""))

    def test_one_circle_among_crates_fails_the_run(self):
        self.assertEqual(run("clean", "circles"), (1, CLEAN + CIRCLES, ""))

    def test_the_graph_reads_nested_folders_and_files_beside_their_folder(self):
        done = subprocess.run(
            [sys.executable, CHECK, "--dot", "scripts/module-graph-test/fixtures/clean/src"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        self.assertEqual((done.returncode, done.stdout), (0, DOT))

    def test_a_module_with_two_files_cannot_be_read(self):
        self.assertEqual(
            run("two-files"),
            (
                2,
                "",
                "scripts/module-graph-test/fixtures/two-files/src: cannot read the crate: module `a` of lib.rs has two "
                "files: a.rs and a/mod.rs\n",
            ),
        )


if __name__ == "__main__":
    unittest.main(verbosity=2)
