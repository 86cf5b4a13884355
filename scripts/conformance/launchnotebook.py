"""nbserve's stand-in for Notebook 6.4's `notebook.tests.launchnotebook` (Debian leaves it out).

Notebook's own version runs a NotebookApp in a thread of the test process; this one starts the
built nbserve bin as a subprocess for each test class, in fresh directories, under the base URL
`/a%40b/` (an escaped `@`, as Notebook's tests and JupyterHub's `/user/<e-mail>/` use), and talks
to it over HTTP only. Tests that reach into the in-process server (`self.notebook.<...>`) are
skipped as white-box tests. The traitlets options some test classes set are translated into
nbserve's flags; options this module does not know fail the class, so that nothing is dropped
without a reason written here.
"""

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import unittest
import uuid
from contextlib import contextmanager

import requests

try:
    from notebook.utils import url_path_join
except ImportError:  # pragma: no cover - the test files import it from there themselves
    def url_path_join(*pieces):
        initial, final = pieces[0].startswith("/"), pieces[-1].endswith("/")
        joined = "/".join(p.strip("/") for p in pieces if p.strip("/"))
        return ("/" if initial else "") + joined + ("/" if final and joined else "")

BASE_URL = "/a%40b/"
REPO = os.environ.get("NBSERVE_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
START_TIMEOUT = 60
REQUEST_TIMEOUT = 60

# traitlets flags of Notebook's test classes -> nbserve flags (None: nothing to translate, see why)
FLAGS = {
    "--MappingKernelManager.cull_idle_timeout": lambda v: [f"--cull-idle-timeout={v}"],
    "--MappingKernelManager.cull_interval": lambda v: [f"--cull-interval={v}"],
    "--MappingKernelManager.cull_connected": lambda v: ["--cull-connected" if v == "True" else "--no-cull-connected"],
    # nbserve has one kernel manager, asynchronous like AsyncMappingKernelManager
    "--NotebookApp.kernel_manager_class": None,
}
# traitlets Config of Notebook's test classes that changes nothing observable over HTTP
CONFIG_WITHOUT_EFFECT = {
    # which checkpoints class the server uses (GenericFileCheckpointsAPITest runs every contents test again)
    ("FileContentsManager", "checkpoints_class"),
    # KernelFilterTest: its only test reads the setting back from the in-process server (white-box)
    ("NotebookApp", "MappingKernelManager"),
}


def nbserve_command():
    """$CONFORMANCE_NBSERVE (a command line, run from the repository), else `node <the built bin>`."""
    given = os.environ.get("CONFORMANCE_NBSERVE")
    if given:
        return shlex.split(given)
    cli = os.path.join(REPO, "packages", "cli")
    with open(os.path.join(cli, "package.json"), encoding="utf-8") as f:
        bin_field = json.load(f)["bin"]
    path = os.path.join(cli, bin_field if isinstance(bin_field, str) else next(iter(bin_field.values())))
    if not os.path.exists(path):
        raise RuntimeError(f"{path} is missing: run `pnpm build` first")
    return ["node", path]


def translate(argv, config):
    """nbserve flags for a test class's `get_argv()` and `config`."""
    out = []
    for arg in argv:
        name, _, value = arg.partition("=")
        if name not in FLAGS:
            raise RuntimeError(f"no nbserve equivalent known for {arg!r}: add it to FLAGS in {__file__}")
        if FLAGS[name] is not None:
            out += FLAGS[name](value)
    for section, values in (config or {}).items():
        for key in values:
            if (section, key) not in CONFIG_WITHOUT_EFFECT:
                raise RuntimeError(f"no nbserve equivalent known for config {section}.{key}: see {__file__}")
    return out


class WhiteBoxTest(unittest.SkipTest):
    pass


class _InProcessServer:
    """What `NotebookTestBase.notebook` was: the in-process app, which a subprocess does not have."""

    def __getattr__(self, name):
        raise WhiteBoxTest(f"white-box: reads the in-process server (notebook.{name}), not observable over HTTP")


class Server:
    """One nbserve process with its own root, home, data, config and runtime directories."""

    def __init__(self, extra_args):
        self.dir = tempfile.mkdtemp(prefix="nbserve-conformance-")
        for sub in ("root", "home", "data", "config", "runtime", "home/.ipython"):
            os.makedirs(os.path.join(self.dir, sub))
        self.root = os.path.join(self.dir, "root")
        self.token = uuid.uuid4().hex
        self.log_path = os.path.join(self.dir, "server.log")
        self.port = None
        self.argv = [
            *nbserve_command(), self.root, "--port=0", "--port-retries=0", "--ip=127.0.0.1", "--no-browser",
            f"--token={self.token}", f"--base-url={BASE_URL}", *extra_args,
        ]
        self.proc = None

    def path(self, sub):
        return os.path.join(self.dir, sub)

    def env(self):
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
        env.update({
            "HOME": self.path("home"),
            "IPYTHONDIR": self.path("home/.ipython"),
            "JUPYTER_NO_CONFIG": "1",
            "JUPYTER_DATA_DIR": self.path("data"),
            "JUPYTER_CONFIG_DIR": self.path("config"),
            "JUPYTER_RUNTIME_DIR": self.path("runtime"),
            "NBSERVE_DATA_DIR": self.path("data"),
            "NBSERVE_CONFIG_DIR": self.path("config"),
            "NBSERVE_RUNTIME_DIR": self.path("runtime"),
        })
        for name in ("NBSERVE_TOKEN", "JUPYTER_TOKEN", "BROWSER"):
            env.pop(name, None)
        return env

    def start(self):
        """Starts nbserve on a port it picks itself and waits for the URL it prints."""
        self.proc = subprocess.Popen(
            # a given command may name files relative to the repository; the built bin runs in the root
            self.argv, cwd=REPO if os.environ.get("CONFORMANCE_NBSERVE") else self.root, env=self.env(), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        )
        found = threading.Event()
        log = open(self.log_path, "wb")

        def pump():
            for line in self.proc.stdout:
                log.write(line)
                log.flush()
                match = re.search(rb"http://127\.0\.0\.1:(\d+)/", line)
                if match and self.port is None:
                    self.port = int(match.group(1))
                    found.set()
            log.close()
            found.set()

        threading.Thread(target=pump, daemon=True).start()
        if not found.wait(START_TIMEOUT) or self.port is None:
            shown = " ".join("--token=<token>" if a.startswith("--token=") else a for a in self.argv)
            tail = self.log_tail()
            self.stop()
            raise RuntimeError(f"nbserve did not start: {shown}\n{tail}")
        return self

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, "rb") as f:
                text = f.read().decode("utf-8", "replace").replace(self.token, "<token>")
        except OSError:
            return ""
        return "--- server log ---\n" + "\n".join(text.splitlines()[-lines:])

    def stop(self):
        """SIGTERM to the server's process group (it shuts its kernels down), SIGKILL after 10 s."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
            except ProcessLookupError:
                pass
        self.proc = None
        keep = os.environ.get("CONFORMANCE_KEEP_LOGS")
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(self.log_path, os.path.join(keep, f"server-{os.getpid()}-{self.port}.log"))
        shutil.rmtree(self.dir, ignore_errors=True)


class NotebookTestBase(unittest.TestCase):
    """The surface of Notebook 6.4's NotebookTestBase that the REST tests use, over a subprocess."""

    config = None
    notebook = _InProcessServer()
    server = None

    @classmethod
    def get_argv(cls):
        return []

    @classmethod
    def setup_class(cls):
        cls.server = Server(translate(cls.get_argv(), cls.config))
        s = cls.server
        cls.tmp_dir = s.dir
        cls.notebook_dir = cls.root_dir = s.root
        cls.home_dir = s.path("home")
        cls.data_dir = s.path("data")
        cls.config_dir = s.path("config")
        cls.runtime_dir = s.path("runtime")
        cls.token = s.token
        cls.url_prefix = BASE_URL
        try:
            s.start()
        except Exception:
            s.stop()
            raise
        cls.port = s.port

    @classmethod
    def teardown_class(cls):
        if cls.server is not None:
            cls.server.stop()
            cls.server = None

    @classmethod
    def base_url(cls):
        return f"http://127.0.0.1:{cls.port}{BASE_URL}"

    @classmethod
    def auth_headers(cls):
        return {"Authorization": f"token {cls.token}"}

    @classmethod
    def request(cls, verb, path, **kwargs):
        kwargs.setdefault("headers", {}).update(cls.auth_headers())
        kwargs.setdefault("timeout", REQUEST_TIMEOUT)
        return requests.request(verb, url_path_join(cls.base_url(), path), **kwargs)

    @classmethod
    def fetch_url(cls, url):
        return requests.get(url, headers=cls.auth_headers(), timeout=REQUEST_TIMEOUT)

    @classmethod
    def wait_until_alive(cls):
        pass  # start() waited for the URL

    @classmethod
    def wait_until_dead(cls):
        pass


@contextmanager
def assert_http_error(status, msg=None):
    """As Notebook's: the block must raise requests.HTTPError with this status (and message)."""
    try:
        yield
    except requests.HTTPError as e:
        real = e.response.status_code
        assert real == status, f"Expected status {status}, got {real}"
        if msg:
            assert msg in str(e), e
    else:
        assert False, "Expected HTTP error status"

