"""Where ``-o`` writes: regular files atomically, pipes and devices straight through, links kept,
compression by suffix (and undone on input by magic bytes), interrupted runs leave no trace.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from robust import COMPRESSIONS, check_exit, invoke
from rankeval_cli.errors import DataError
from rankeval_cli.outputs import atomic_output

HEADER = "group\titem\tgold\tpred\n"
ROWS = "".join(f"g{g}\ti{i}\t{i + 1}\t{(g * 7 + i * 3) % 5 + 1}\n" for g in range(40) for i in range(5))
DATA = HEADER + ROWS
PRECIOUS = "precious, written before the run\n"
DECOMPRESS = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}
SUFFIX_OF = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz"}

needs_posix = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and signals need POSIX")


def expected_output() -> str:
    result = invoke(["normalize"], DATA)
    assert result.exit_code == 0
    return result.stdout


def decompress(path: Path) -> bytes:
    import importlib

    module = importlib.import_module(DECOMPRESS[path.suffix])
    return module.decompress(path.read_bytes())


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".rankeval-"))


def run(args, data: str = DATA, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, RANKEVAL_PROGRESS="0")
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], input=data.encode(), capture_output=True,
                          env=env, timeout=120, **kwargs)


# --- pipes, process substitution, devices -------------------------------------------------------

@needs_posix
def test_a_fifo_with_a_live_reader_gets_the_output_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = run(["normalize", "-o", str(fifo)])
    reader.join(60)
    assert result.returncode == 0, result.stderr
    assert received == [expected_output().encode()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


@needs_posix
def test_a_fifo_whose_reader_leaves_early_ends_quietly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    big = HEADER + "".join(f"g{g}\ti{i}\t{i + 1}\t{i}\n" for g in range(40000) for i in range(5))
    reader = subprocess.Popen(["head", "-c", "100", str(fifo)], stdout=subprocess.DEVNULL)
    result = run(["normalize", "-o", str(fifo)], big)
    reader.wait(60)
    assert result.returncode == 0 and result.stderr == b""  # a closed pipe, as on stdout
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@needs_posix
def test_a_compressed_fifo_is_written_through_compressed(tmp_path):
    fifo = tmp_path / "pipe.gz"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert run(["normalize", "-o", str(fifo)]).returncode == 0
    reader.join(60)
    import gzip

    assert gzip.decompress(received[0]).decode() == expected_output()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@needs_posix
def test_process_substitution_through_bash(tmp_path):
    out = tmp_path / "x.gz"
    script = (f'{sys.executable} -m rankeval_cli normalize "$1" -o >(gzip > "$2"); status=$?; wait $!; '
              'exit $status')
    (tmp_path / "in.tsv").write_text(DATA)
    result = subprocess.run(["bash", "-c", script, "bash", str(tmp_path / "in.tsv"), str(out)],
                            capture_output=True, text=True, timeout=120, env=dict(os.environ, RANKEVAL_PROGRESS="0"))
    assert result.returncode == 0, result.stderr
    assert decompress(out).decode() == expected_output()


def test_dev_stdout_is_written_through():
    result = run(["normalize", "-o", "/dev/stdout"])
    assert result.returncode == 0 and result.stdout.decode() == expected_output()


@pytest.fixture
def full_device(tmp_path):
    """A character device that fails every write with ENOSPC, which the test may safely lose.

    As root, a private node made like /dev/full (1, 7) in the test folder, so that no
    system file is ever at risk; otherwise /dev/full itself, which an ordinary user
    cannot replace.
    """
    if os.geteuid() == 0:
        node = tmp_path / "full"
        try:
            os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        except (OSError, AttributeError):
            pytest.skip("cannot make a private device node; /dev/full itself is not risked as root")
        return node
    if not os.path.exists("/dev/full") or os.access("/dev", os.W_OK):
        pytest.skip("no /dev/full, or /dev is writable")
    return Path("/dev/full")


@needs_posix
def test_a_full_device_is_a_one_line_error_and_stays_a_device(full_device):
    before = os.lstat(full_device)
    result = run(["normalize", "-o", str(full_device)])
    after = os.lstat(full_device)
    assert result.returncode == 1
    assert result.stderr.decode() == f"rankeval: {full_device}: cannot write: No space left on device\n"
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert leftovers(full_device.parent) == []


@needs_posix
def test_never_renames_over_what_became_a_fifo(tmp_path, monkeypatch):
    """Even when the decision was 'a regular file' (forced here), the rename checks again."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    monkeypatch.setattr("rankeval_cli.outputs._open_in_place", lambda dest: None)
    with pytest.raises(DataError, match="no longer a regular file"):
        with atomic_output(str(fifo)) as out:
            out.write("x\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


def test_a_directory_is_an_error(tmp_path):
    with pytest.raises(DataError, match="cannot write"):
        with atomic_output(str(tmp_path)) as out:
            out.write("x\n")
    assert leftovers(tmp_path) == []


# --- symbolic links ---------------------------------------------------------------------------------

def test_a_symlink_is_kept_and_its_target_replaced(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.tsv"
    target.write_text(PRECIOUS)
    os.chmod(target, 0o640)
    link = tmp_path / "link.tsv"
    link.symlink_to(os.path.relpath(target, tmp_path))
    assert invoke(["normalize", "-o", str(link)], DATA).exit_code == 0
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(target, tmp_path)
    assert target.read_text() == expected_output()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "real") == []


needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="giving a file to another user needs root")


@needs_root
@pytest.mark.parametrize("mode", [0o640, 0o444, 0o604])
def test_a_replaced_file_keeps_its_owner_group_and_mode(tmp_path, mode):
    """The shell's '>' writes in place and so keeps them; a rename must carry them over."""
    target = tmp_path / "out.tsv"
    target.write_text(PRECIOUS)
    os.chown(target, 4321, 8765)
    os.chmod(target, mode)
    result = run(["normalize", "-o", str(target)])  # a real process, as root
    assert result.returncode == 0, result.stderr
    after = target.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (4321, 8765, mode)
    assert target.read_text() == expected_output()
    assert leftovers(tmp_path) == []


def test_a_new_file_gets_the_umask_mode(tmp_path):
    target = tmp_path / "new.tsv"
    umask = os.umask(0o027)
    try:
        assert invoke(["normalize", "-o", str(target)], DATA).exit_code == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


class _Result:
    def __init__(self, exit_code: int, stderr: str):
        self.exit_code, self.stderr = exit_code, stderr


@needs_root
def test_a_file_the_user_may_not_write_is_not_replaced(tmp_path):
    """A 0444 file in a folder the user may write: the rename would succeed, '>' would not; nor
    does -o. Run in a forked child whose effective user is 'nobody'."""
    tmp_path.chmod(0o777)
    target = tmp_path / "read-only.tsv"
    target.write_text(PRECIOUS)
    target.chmod(0o444)
    expected_output()  # every module the run needs is imported before the fork
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the pipe)
        status = 99
        try:
            os.close(read)
            os.setegid(65534)
            os.seteuid(65534)
            result = invoke(["normalize", "-o", str(target)], DATA)
            os.write(write, result.stderr.encode())
            status = result.exit_code
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        stderr = pipe.read().decode()
    _, status = os.waitpid(child, 0)
    assert "cannot write: Permission denied" in check_exit(_Result(os.waitstatus_to_exitcode(status), stderr),
                                                           source=str(target))
    assert target.read_text() == PRECIOUS
    assert leftovers(tmp_path) == []


def test_a_failed_run_leaves_a_symlink_and_its_target_untouched(tmp_path):
    target = tmp_path / "out.tsv"
    target.write_text(PRECIOUS)
    link = tmp_path / "link.tsv"
    link.symlink_to(target)
    result = invoke(["normalize", "-o", str(link)], DATA + "z\ta\t1\tnot-a-number\n")
    assert result.exit_code == 1
    assert link.is_symlink() and target.read_text() == PRECIOUS and leftovers(tmp_path) == []


def test_a_dangling_symlink_gets_its_target_created(tmp_path):
    link = tmp_path / "link.tsv"
    link.symlink_to(tmp_path / "new.tsv")
    assert invoke(["normalize", "-o", str(link)], DATA).exit_code == 0
    assert link.is_symlink() and (tmp_path / "new.tsv").read_text() == expected_output()


# --- compression -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(COMPRESSIONS))
def test_compressed_output_by_suffix_reads_back(tmp_path, kind):
    out = tmp_path / f"out.tsv{SUFFIX_OF[kind]}"
    out.write_text(PRECIOUS)
    assert invoke(["normalize", "-o", str(out)], DATA).exit_code == 0
    assert decompress(out).decode() == expected_output()
    assert leftovers(tmp_path) == []
    again = invoke(["normalize", str(out)])  # read back: compression found by its magic bytes
    assert again.exit_code == 0 and again.stdout == expected_output()
    renamed = tmp_path / "no-suffix"
    renamed.write_bytes(out.read_bytes())
    assert invoke(["normalize", str(renamed)]).stdout == expected_output()
    assert invoke(["normalize"], out.read_bytes()).stdout == expected_output()  # stdin too


@pytest.mark.parametrize("kind", sorted(COMPRESSIONS))
def test_compressed_output_is_atomic(tmp_path, kind):
    out = tmp_path / f"out.tsv{SUFFIX_OF[kind]}"
    out.write_text(PRECIOUS)
    assert invoke(["normalize", "-o", str(out)], DATA + "z\ta\t1\tnot-a-number\n").exit_code == 1
    assert out.read_text() == PRECIOUS and leftovers(tmp_path) == []


def test_gzip_output_is_reproducible(tmp_path):
    a, b = tmp_path / "a.tsv.gz", tmp_path / "b.tsv.gz"
    invoke(["normalize", "-o", str(a)], DATA)
    invoke(["normalize", "-o", str(b)], DATA)
    head = a.read_bytes()[:10]
    assert head[3] == 0 and head[4:8] == bytes(4)  # no file name, comment or time in the header (RFC 1952)
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("kind", sorted(COMPRESSIONS))
@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "jcml"])
def test_each_compression_both_ways_in_convert(tmp_path, kind, fmt):
    plain = invoke(["convert", "--output-format", fmt], DATA).stdout
    out = tmp_path / f"out.{fmt}{SUFFIX_OF[kind]}"
    assert invoke(["convert", "--output-format", fmt, "-o", str(out)], DATA).exit_code == 0
    assert decompress(out).decode() == plain
    (tmp_path / "plain").write_text(plain)
    read_back = [invoke(["convert", "--from", fmt, str(path)]) for path in (out, tmp_path / "plain")]
    assert read_back[0].exit_code == 0 and read_back[0].stdout == read_back[1].stdout


@pytest.mark.parametrize("kind", sorted(COMPRESSIONS))
def test_truncated_compressed_input_names_the_file(tmp_path, kind):
    rows = "".join(f"g{g}\ti{i}\t{i + 1}\t{(g * 7 + i * 3) % 5 + 1}\n" for g in range(2000) for i in range(5))
    whole = COMPRESSIONS[kind]((HEADER + rows).encode())
    path = tmp_path / "cut"
    path.write_bytes(whole[: len(whole) // 2])
    result = invoke(["tau", str(path)])
    assert "corrupt or truncated compressed input" in check_exit(result, source=str(path))
    corrupt = bytearray(whole)
    corrupt[len(corrupt) // 2:len(corrupt) // 2 + 8] = b"\xff" * 8
    path.write_bytes(bytes(corrupt))
    assert "compressed input" in check_exit(invoke(["tau", str(path)]), source=str(path))


def test_text_that_starts_like_bzip2_is_not_taken_for_it():
    data = "group\titem\tgold\tpred\n".replace("group", "BZh9x") + "g\ta\t1\t1\n"
    result = invoke(["normalize"], data)
    assert "header lacks column(s) group" in check_exit(result, line=1)


# --- interrupted writes ----------------------------------------------------------------------------

#: every catchable signal whose default ends the program (SIGINT aside: Ctrl-C, exit 130)
ENDING = [getattr(signal, name) for name in ("SIGHUP", "SIGQUIT", "SIGTERM", "SIGALRM", "SIGUSR1", "SIGUSR2",
                                             "SIGXCPU", "SIGVTALRM", "SIGPROF") if hasattr(signal, name)]


@needs_posix
@pytest.mark.parametrize("signum, status", [pytest.param(signal.SIGINT, 130, id="SIGINT")]
                         + [pytest.param(s, 128 + s, id=signal.Signals(s).name) for s in ENDING])
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path, signum, status, suffix):
    target = tmp_path / f"out.tsv{suffix}"
    target.write_text(PRECIOUS)
    env = dict(os.environ, RANKEVAL_PROGRESS="0")
    process = subprocess.Popen(
        [sys.executable, "-m", "rankeval_cli", "normalize", "-o", str(target)], stdin=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # a background shell may ignore it
    try:
        process.stdin.write(DATA.encode() * 1)
        process.stdin.flush()
        deadline = time.monotonic() + 60
        while not leftovers(tmp_path) and time.monotonic() < deadline:  # the temporary file is being written
            time.sleep(0.02)
        assert leftovers(tmp_path), "no temporary file appeared"
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == status, stderr
    assert b"Traceback" not in stderr
    assert target.read_text() == PRECIOUS
    assert leftovers(tmp_path) == []
