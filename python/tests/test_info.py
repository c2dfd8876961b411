"""`python -m dml info` against the dmlinfo tool (src/tools/dmlinfo.c) of the
same runtime: the same text, the same JSON facts, the same failures; and the
library discovery that puts the wheel's own libdml.so.1 first after
$DML_LIBRARY. dmlinfo is looked for beside the loaded library
(<libdir>/../bin/dmlinfo: the build tree and a `cmake --install` prefix have
it, a wheel does not); without it the comparisons are skipped."""
import ctypes
import json
import os
import subprocess
import sys
import unittest

import dml  # noqa: F401  (the package under test must import)
from dml import _lib

LOADED = getattr(_lib.lib, "_name", "")
PACKAGE = os.path.dirname(os.path.abspath(dml.__file__))


def run_info(*args, env=None):
    return subprocess.run([sys.executable, "-m", "dml", "info"] + list(args), capture_output=True, env=env)


def dmlinfo_path():
    if not os.path.isabs(LOADED):
        return None
    path = os.path.join(os.path.dirname(os.path.dirname(LOADED)), "bin", "dmlinfo")
    return path if os.access(path, os.X_OK) else None


class Info(unittest.TestCase):
    def test_reports_the_loaded_runtime_and_its_plugins(self):
        p = run_info()
        self.assertIn(p.returncode, (0, 1), p.stderr)
        text = p.stdout.decode("utf-8", "replace")
        self.assertTrue(text.startswith("Runtime %s (ABI " % dml.version().runtime), text)
        if os.path.isabs(LOADED):  # plugins are found in dml/ next to the library
            self.assertIn("  %s\n" % os.path.join(os.path.dirname(os.path.realpath(LOADED)), "dml", "libdml_cpu.so"),
                          text)
            self.assertIn("\nSelected backend: ", text)

    def test_json_is_one_object(self):
        p = run_info("--json")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        report = json.loads(p.stdout)
        self.assertEqual(report["version"]["runtime"], dml.version().runtime)
        self.assertTrue(any(plugin["backend"] == "cpu" and plugin["loaded"] for plugin in report["plugins"]))

    def test_usage(self):
        p = run_info("--help")
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith(b"usage: python -m dml info [--backend NAME] [--json]\n"))
        for bad in (["--frobnicate"], ["--backend"]):
            p = run_info(*bad)
            self.assertEqual(p.returncode, 2, bad)
            self.assertTrue(p.stderr.startswith(b"python -m dml info: "), p.stderr)
        p = subprocess.run([sys.executable, "-m", "dml", "nothing"], capture_output=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"unknown command 'nothing'", p.stderr)

    def test_plugin_info_layout(self):
        from dml import _info
        self.assertEqual(ctypes.sizeof(_info.PLUGIN_INFO), 804)  # sizeof(DML_PLUGIN_INFO)
        self.assertEqual(_info.PLUGIN_INFO.Reason.offset, 548)


@unittest.skipUnless(dmlinfo_path(), "no dmlinfo beside %s" % (LOADED or "the loaded libdml.so.1"))
class SameAsDmlinfo(unittest.TestCase):
    """Byte for byte for the text; as data for --json (dmlinfo writes its own
    spacing); the same exit status; the same message for a failing call."""

    def compare(self, *args, env=None):
        want = subprocess.run([dmlinfo_path()] + list(args), capture_output=True, env=env)
        got = run_info(*args, env=env)
        self.assertEqual(got.returncode, want.returncode, (args, got.stderr, want.stderr))
        return got, want

    def test_text(self):
        for args in ([], ["--backend", "cpu"]):
            got, want = self.compare(*args)
            self.assertEqual(got.stdout.decode("utf-8", "replace"), want.stdout.decode("utf-8", "replace"), args)

    def test_json(self):
        for args in (["--json"], ["--json", "--backend", "cpu"]):
            got, want = self.compare(*args)
            self.assertEqual(json.loads(got.stdout), json.loads(want.stdout), args)

    def test_forced_by_environment(self):
        got, want = self.compare(env=dict(os.environ, DML_BACKEND="cpu"))
        self.assertIn(b"(forced by DML_BACKEND)", want.stdout)
        self.assertEqual(got.stdout, want.stdout)

    def test_failing_call(self):
        got, want = self.compare("--backend", "no-such-backend")
        self.assertEqual(got.returncode, 2)
        self.assertTrue(want.stderr.startswith(b"dmlinfo: dmlCreateDevice failed: "), want.stderr)
        self.assertEqual(got.stderr.replace(b"python -m dml info: ", b"dmlinfo: ", 1), want.stderr)


class Discovery(unittest.TestCase):
    """$DML_LIBRARY wins; without it, the library inside the package
    (dml/lib/libdml.so.1, where the wheel puts it) comes first."""

    def candidates(self, **env):
        code = "import dml._lib as l, json; print(json.dumps(l._candidates()))"
        environ = {k: v for k, v in os.environ.items() if k != "DML_LIBRARY"}
        environ.update(env)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_environment_overrides(self):
        if not os.path.isabs(LOADED):
            self.skipTest("the runtime was found by the dynamic loader")
        self.assertEqual(self.candidates(DML_LIBRARY=LOADED), [LOADED])

    def test_package_first(self):
        bundled = os.path.join(PACKAGE, "lib", "libdml.so.1")
        if not os.path.exists(bundled):
            self.skipTest("this install of the package holds no runtime (not a wheel)")
        self.assertEqual(self.candidates()[0], bundled)
        if "DML_LIBRARY" not in os.environ:
            self.assertEqual(LOADED, bundled)
