"""Iceberg's REST Compatibility Kit (RCK, Iceberg 1.10.0) against `floe serve --rest`: one run
of the kit's 102 tests (RESTCompatibilityKitCatalogTests, in one JVM) on a fresh catalog and
warehouse, then its JUnit report checked against EXPECTED_NOT_PASSED, the tests floe does not
pass with the reason for each. A listed test that passes fails the run too, so the list stays
true; docs/serve.md repeats it for users. The report and the kit's output stay in
build-rest/reports/.
Run it after scripts/setup-rest-kit.sh:
    .venv/bin/python -m pytest tests/interop/rest_kit
Without build-rest/classpath it is skipped, unless CI=true: then it fails."""

import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "cli"))

from floe_driver import CLI, ROOT  # noqa: E402
from serve_support import Serve  # noqa: E402
from tcp_relay import TcpRelay  # noqa: E402

CLASSPATH = ROOT / "build-rest" / "classpath"
REPORTS = ROOT / "build-rest" / "reports"
KIT_CLASS = "org.apache.iceberg.rest.RESTCompatibilityKitCatalogTests"
KIT_TESTS = 102  # what RESTCompatibilityKitCatalogTests of Iceberg 1.10.0 runs
# The kit puts some tables at file:/tmp/<namespace>/<table> (CatalogTests' baseTableLocation),
# outside any warehouse, in these namespaces of its own.
KIT_TABLE_ROOTS = [Path("/tmp/newdb"), Path("/tmp/ns")]

# Every test of the kit that does not pass against floe, by its name in the JUnit report, with
# why; docs/serve.md lists them too. Aborted tests (a failed assumption) count as not passed.
EMPTY_NAMESPACE = ("aborted by the kit, as for any REST server: RESTCompatibilityKitCatalogTests "
                   "declares no support for the empty namespace (floe refuses to create it too)")
DOTS = ("aborted: names with a dot are tested only with rck.supports-names-with-dot=true, which "
        "the run leaves unset because floe refuses '.' in a namespace level ")
EXPECTED_NOT_PASSED = {
    "createAndDropEmptyNamespace()": EMPTY_NAMESPACE,
    "listNamespacesWithEmptyNamespace()": EMPTY_NAMESPACE,
    "listTablesInEmptyNamespace()": EMPTY_NAMESPACE,
    "namespacePropertiesOnEmptyNamespace()": EMPTY_NAMESPACE,
    "testListNestedNamespaces()": (
        "aborted by the kit, as for any REST server: RESTCompatibilityKitCatalogTests declares no "
        "support for nested namespaces and has no setting for it, though floe serves them"),
    "testNamespaceWithDot()": DOTS + "(with it set, this test fails with a 400)",
    "testTableNameWithDot()": DOTS + "(with it set, this test passes: table names may hold '.')",
}


class Relay(TcpRelay):
    """A byte-for-byte TCP relay in front of floe's REST port. It notes the first request line
    of each connection and whether floe answered: the proof that the kit talked to floe, not to
    a server of its own (it starts one on port 8181 unless told rck.local=false)."""

    def __init__(self, upstream_port):
        self.first_lines = []  # the first request line of each connection
        self.answered = 0  # connections floe answered
        super().__init__(upstream_port)

    def watchers(self):
        """The first chunk each way: the request line the kit sent, and whether floe answered."""
        seen = {"request": False, "answer": False}

        def request(data):
            if not seen["request"]:
                seen["request"] = True
                with self.lock:
                    self.first_lines.append(data.split(b"\r\n", 1)[0].decode("latin-1"))

        def answer(data):
            if not seen["answer"]:
                seen["answer"] = True
                if data.startswith(b"HTTP/1.1 "):
                    with self.lock:
                        self.answered += 1

        return request, answer


@dataclass
class KitRun:
    outcomes: dict  # test name -> ("passed" | "failed" | "aborted", message)
    seconds: float
    relay: Relay

    def not_passed(self):
        return {name: o for name, o in self.outcomes.items() if o[0] != "passed"}

    def counts(self):
        kinds = [o[0] for o in self.outcomes.values()]
        return {k: kinds.count(k) for k in ("passed", "failed", "aborted")}


def read_report(path):
    """{test name: (outcome, message)} from the JUnit XML the console launcher writes; an aborted
    test (a failed assumption) is a <skipped> there."""
    outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = "aborted" if child.tag == "skipped" else "failed"
                message = one_line(child.get("message") or child.text or "")
        assert case.get("name") not in outcomes, f"two tests named {case.get('name')}"
        outcomes[case.get("name")] = (outcome, message)
    return outcomes


def one_line(message):
    """A failure's message on one line, without its stack trace."""
    lines = [line.strip() for line in message.splitlines()]
    kept = [line for line in lines if line and not line.startswith(("at ", "...", "Caused by"))]
    return " ".join(dict.fromkeys(kept))[:400]  # a cause repeats its message


def files_under(roots):
    return {p for root in roots if root.exists() for p in root.rglob("*")}


def remove_new_files(roots, before):
    """Removes what the run added under the kit's table roots, deepest first, and nothing else."""
    for path in sorted(files_under(roots) - before, key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    for root in roots:
        if root.exists() and root not in before and not any(root.iterdir()):
            root.rmdir()


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    if not CLASSPATH.exists():
        message = f"{CLASSPATH} is missing: run scripts/setup-rest-kit.sh to fetch the kit"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing; build it: scripts/build.sh release")
    base = tmp_path_factory.mktemp("rest-kit")
    existed = {root for root in KIT_TABLE_ROOTS if root.exists()}
    before = files_under(KIT_TABLE_ROOTS) | existed
    allow = [arg for root in KIT_TABLE_ROOTS for arg in ("--allow-root", str(root))]
    serve = Serve(CLI, *allow, directory=str(base), rest=True)
    relay = None
    try:
        relay = Relay(serve.rest_port)
        # The kit reads every CATALOG_* variable as catalog configuration: only ours.
        env = {k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")}
        env.update(CATALOG_URI=f"http://127.0.0.1:{relay.port}",
                   CATALOG_WAREHOUSE=str(base / "kit-warehouse"))
        java = "java"  # as scripts/setup-rest-kit.sh finds it
        if os.environ.get("JAVA_HOME"):
            java = str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
        shutil.rmtree(REPORTS, ignore_errors=True)
        REPORTS.mkdir(parents=True)
        command = [java, "-Drck.requires-namespace-create=true",
                   "-cp", CLASSPATH.read_text().strip(),
                   "org.junit.platform.console.ConsoleLauncher", "execute", "--disable-banner",
                   "--details=tree", "--config=rck.local=false", f"--select-class={KIT_CLASS}",
                   "--reports-dir", str(REPORTS)]
        started = time.monotonic()
        with open(REPORTS / "console.txt", "w") as console:
            done = subprocess.run(command, env=env, stdout=console, stderr=subprocess.STDOUT,
                                  timeout=900)
        seconds = time.monotonic() - started
        output = (REPORTS / "console.txt").read_text()
        # 0: all passed, 1: some did not; anything else means the kit itself did not run.
        assert done.returncode in (0, 1), f"the kit exited {done.returncode}:\n{output[-5000:]}"
        assert serve.alive(), f"floe serve died during the kit: {''.join(serve.stderr)}"
        run = KitRun(read_report(REPORTS / "TEST-junit-jupiter.xml"), seconds, relay)
    finally:
        if relay is not None:
            relay.close()
        serve.stop()
        remove_new_files(KIT_TABLE_ROOTS, before)
    print(f"\nREST Compatibility Kit against floe: {run.counts()} of {len(run.outcomes)} "
          f"in {run.seconds:.1f} s")
    return run


def describe(outcomes):
    return "\n".join(f"  {name}: {kind}: {message}"
                     for name, (kind, message) in sorted(outcomes.items()))


def test_the_kit_ran_against_floe(kit):
    lines = kit.relay.first_lines
    assert any(line.startswith("GET /v1/config") for line in lines), f"no config request: {lines}"
    assert kit.relay.answered > 0, "floe answered no request"
    assert len(kit.outcomes) == KIT_TESTS, f"the kit ran {len(kit.outcomes)} tests, not {KIT_TESTS}"


def test_every_test_passes_or_is_expected_not_to(kit):
    unexpected = {n: o for n, o in kit.not_passed().items() if n not in EXPECTED_NOT_PASSED}
    assert not unexpected, (f"{len(unexpected)} tests of the kit did not pass and are not in "
                            f"EXPECTED_NOT_PASSED:\n{describe(unexpected)}")


def test_expected_not_passed_is_current(kit):
    unknown = sorted(set(EXPECTED_NOT_PASSED) - set(kit.outcomes))
    assert not unknown, f"EXPECTED_NOT_PASSED names tests the kit does not have: {unknown}"
    passing = sorted(n for n in EXPECTED_NOT_PASSED if kit.outcomes[n][0] == "passed")
    assert not passing, f"these tests pass now; remove them from EXPECTED_NOT_PASSED: {passing}"
