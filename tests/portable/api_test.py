"""The cudiag Python API, run from a venv the wheel was installed into.

Run with that venv's python: `VENV/bin/python api_test.py`. It uses the real
binary the wheel installed, on this machine (CI has NVIDIA's 535 user-space
driver and no GPU, so `check` finds errors and exits 1).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import unittest

import cudiag

LAYERS = ("host", "kernel_driver", "nvml", "driver_api", "cuda_runtime", "libraries", "findings")
# The CLI on this machine must not read or write the user's answer cache.
os.environ["CUDIAG_CACHE_DIR"] = ""


class BinaryPath(unittest.TestCase):
    def test_is_the_script_the_wheel_installed(self) -> None:
        path = cudiag.binary_path()
        self.assertEqual(os.path.dirname(path), sysconfig.get_path("scripts"))
        self.assertTrue(os.access(path, os.X_OK))

    def test_python_m_passes_arguments_and_exit_code_through(self) -> None:
        direct = subprocess.run([cudiag.binary_path(), "--version"], capture_output=True, text=True)
        via = subprocess.run([sys.executable, "-m", "cudiag", "--version"], capture_output=True, text=True)
        self.assertEqual(via.returncode, 0)
        self.assertEqual(via.stdout, direct.stdout)
        self.assertTrue(via.stdout.startswith("cudiag "), via.stdout)
        bad = subprocess.run([sys.executable, "-m", "cudiag", "report", "--format", "yaml"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--format", bad.stderr)


class Options(unittest.TestCase):
    def test_mapping(self) -> None:
        argv = cudiag.options_to_argv(
            {"no_frameworks": True, "deep": False, "python": ["/a/python", "/b/python"],
             "assume": {"driver": "535.104.05", "gpu": "sm_90"}, "timeout": 3, "kb": None})
        self.assertEqual(argv, ["--no-frameworks", "--python", "/a/python", "--python", "/b/python",
                                "--assume", "driver=535.104.05", "--assume", "gpu=sm_90", "--timeout", "3"])

    def test_not_an_option_name(self) -> None:
        with self.assertRaises(TypeError):
            cudiag.options_to_argv({"_private": True})


class Report(unittest.TestCase):
    def test_has_every_layer(self) -> None:
        r = cudiag.report(no_frameworks=True)
        for key in LAYERS:
            self.assertIn(key, r)
        self.assertEqual(r["tool"]["name"], "cudiag")
        self.assertEqual(r["tool"]["version"], cudiag.__version__)

    def test_global_option_before_the_command(self) -> None:
        # --timeout is a global option; accepted, and the report still has every layer.
        r = cudiag.report(timeout=5, no_frameworks=True)
        self.assertIn("driver_api", r)


class Check(unittest.TestCase):
    def test_this_machine_has_an_error_finding(self) -> None:
        c = cudiag.check(no_frameworks=True)
        self.assertEqual(c.exit_code, 1)
        self.assertFalse(c.ok)
        self.assertTrue(any(f["severity"] == "error" for f in c.findings), c.findings)
        self.assertIsNotNone(c.first_failing_layer)
        self.assertIn(c.first_failing_layer, LAYERS)

    def test_assumed_working_combination_exits_0(self) -> None:
        c = cudiag.check(no_collect=True, assume={"driver": "570.86.10", "cuda_runtime": "12.4", "gpu": "sm_90"})
        self.assertEqual(c.exit_code, 0, [f["id"] for f in c.findings])
        self.assertTrue(c.ok)

    def test_assumed_old_driver_exits_1(self) -> None:
        c = cudiag.check(no_collect=True, assume={"driver": "450.80.02", "cuda_runtime": "12.4", "gpu": "sm_90"})
        self.assertEqual(c.exit_code, 1)
        self.assertTrue(any(f["severity"] == "error" for f in c.findings))


class Explain(unittest.TestCase):
    def test_known_message(self) -> None:
        e = cudiag.explain("CUDA driver version is insufficient for CUDA runtime version", no_collect=True)
        self.assertIsInstance(e, dict)
        self.assertIn("insufficient", str(e).lower())

    def test_unrecognised_failure_is_compared_with_the_reported_failures(self) -> None:
        # The portable build loads the index of reported failures with its own
        # parser (nlohmann in similar_reports_builtin.cpp): it must load and answer.
        e = cudiag.explain(
            "RuntimeError: CUDA error: no kernel image is available for execution on the device "
            "after upgrading to a new GPU with my old torch build",
            no_collect=True,
        )
        similar = e.get("similar_reports", [])
        self.assertTrue(similar, e)
        self.assertTrue(all(r["url"].startswith("https://") and r["fix"] for r in similar))

    def test_text_starting_with_a_dash_is_text(self) -> None:
        # stdin, not argv: a message that looks like an option is still a message.
        e = cudiag.explain("--format yaml", no_collect=True)
        self.assertIsInstance(e, dict)


class Errors(unittest.TestCase):
    def test_bad_input_raises_with_the_cli_message(self) -> None:
        with self.assertRaises(cudiag.CudiagError) as ctx:
            cudiag.report(root="/nonexistent-cudiag-root")
        self.assertEqual(ctx.exception.exit_code, 2)
        self.assertIn("/nonexistent-cudiag-root", str(ctx.exception))

    def test_unknown_option_raises(self) -> None:
        with self.assertRaises(cudiag.CudiagError) as ctx:
            cudiag.check(frobnicate=True)
        self.assertEqual(ctx.exception.exit_code, 2)
        self.assertIn("frobnicate", str(ctx.exception))

    def test_bad_assumption_raises(self) -> None:
        with self.assertRaises(cudiag.CudiagError) as ctx:
            cudiag.check(no_collect=True, assume={"driver": "not-a-version"})
        self.assertEqual(ctx.exception.exit_code, 2)
        self.assertIn("not-a-version", str(ctx.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
