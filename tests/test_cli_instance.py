"""``mixbounds instance`` (mixbounds/cli/instance.py): exit codes, parameters passed on, nothing half-written."""

import os
import subprocess
import sys

import numpy as np
import pytest
from mixbounds.instances.io import load_instance
from mixbounds.instances.reference.kkt import KKT_RTOL

import mixbounds.cli.instance as cli_instance
from mixbounds import instances
from mixbounds.cli.command import build_parser
from mixbounds.cli.instance import EXIT_FAIL, EXIT_OK, EXIT_USAGE


def parser():
    """The command line's parser (this sub-command's options are declared in mixbounds.cli.options)."""
    return build_parser()


def run(argv):
    args = parser().parse_args(argv)
    return args.func(args)


def test_success_writes_instance_and_prints_summary(tmp_path, capsys):
    out = tmp_path / "mixed"
    code = run(["instance", "random-mixed", "--kappa-AC", "300", "--kappa-C", "10", "--kappa-Ct", "20",
                "--kappa-W", "50", "--kappa-f", "30", "--graph", "ring", "--n", "6", "--seed", "4", "--out", str(out)])
    assert code == EXIT_OK
    text = capsys.readouterr().out
    for s in ("random-mixed", "n = 6", "kappa_AC", "target 300", "KKT residual", "findings", str(out)):
        assert s in text
    inst = load_instance(out)
    assert inst.targets == {"kappa_f": 30.0, "kappa_W": 50.0, "kappa_C": 10.0, "kappa_AC": 300.0, "kappa_Ct": 20.0}
    assert inst.seed == 4 and inst.problem.n == 6
    assert inst.x_star is not None and inst.params["reference"]["kkt_residual"] <= KKT_RTOL
    assert (out / "x_star.npy").is_file()


def test_no_reference(tmp_path):
    out = tmp_path / "c"
    assert run(["instance", "random-consensus", "--no-reference", "--out", str(out)]) == EXIT_OK
    assert not (out / "x_star.npy").exists() and load_instance(out).x_star is None


def test_only_given_parameters_are_passed(tmp_path, monkeypatch):
    seen = {}
    real = instances.families.build

    def spy(name, **params):
        seen.update(params)
        return real(name, **params)

    monkeypatch.setattr(cli_instance, "build", spy)
    assert run(["instance", "random-coupled", "--kappa-A", "7", "--eps", "1e-6", "--variant", "default",
                "--no-reference", "--out", str(tmp_path / "o")]) == EXIT_OK
    assert seen == {"kappa_AC": 7.0, "eps": 1e-6, "variant": "default"}
    inst = load_instance(tmp_path / "o")
    assert inst.realized["kappa_A"] == pytest.approx(7.0, rel=inst.params["tolerance"]["kappa_A"])


def test_family_keywords_set_the_sizes(tmp_path, monkeypatch):
    """--d, --m, --graph er with --param er_p=… reach the builder and the written instance has those sizes."""
    seen = {}
    real = instances.families.build

    def spy(name, **params):
        seen.clear()
        seen.update(params)
        return real(name, **params)

    monkeypatch.setattr(cli_instance, "build", spy)
    out = tmp_path / "o"
    assert run(["instance", "random-coupled", "--n", "10", "--d", "8", "--m", "4", "--graph", "er", "--param", "er_p=0.5",
                "--no-reference", "--out", str(out)]) == EXIT_OK
    assert seen == {"n": 10, "d": 8, "m": 4, "graph": "er", "er_p": 0.5}
    P = load_instance(out).problem
    assert P.n == 10 and set(P.layout.d) == {8} and P.A[0].shape == (4, 8)
    assert run(["instance", "random-mixed", "--n", "4", "--d", "7", "--dt", "5", "--m", "2", "--p", "3", "--pt", "2",
                "--objective", "logistic", "--samples", "6", "--no-reference", "--out", str(out)]) == EXIT_OK
    assert seen == {"n": 4, "d": 7, "dt": 5, "m": 2, "p": 3, "pt": 2, "objective": "logistic", "samples": 6}
    P = load_instance(out).problem
    assert P.layout.dt == 5 and P.C[0].shape == (3, 7) and P.Ct[0].shape == (2, 5)
    assert P.objective.features[0].shape[0] == 6


def _nothing_written(tmp_path, keep=()):
    assert sorted(os.listdir(tmp_path)) == sorted(keep)


@pytest.mark.parametrize("argv,match", [
    (["instance", "no-such-family"], "unknown instance family"),
    (["instance", "random-coupled", "--kappa-AC", "0.5"], "impossible"),
    (["instance", "random-consensus", "--kappa-f", "0"], "impossible"),
    (["instance", "random-consensus", "--kappa-W", "100", "--n", "7"], "needs n = 15"),
    (["instance", "random-shared", "--kappa-Ct", "1.2"], "below"),
    (["instance", "random-mixed", "--kappa-A", "5"], "alias of --kappa-AC"),
    (["instance", "random-coupled", "--kappa-A", "5", "--kappa-AC", "6"], "disagree"),
    (["instance", "random-mixed", "--variant", "printed"], "unknown variant"),
    (["instance", "random-mixed", "--graph", "torus"], "unknown graph"),
    (["instance", "vertical-fl", "--kappa-AC", "10"], "fixed by the features"),
    (["instance", "random-coupled", "--features", "3"], "unknown parameter(s) features"),
    (["instance", "random-coupled", "--param", "bad key=1"], "expected KEY=VALUE"),
    (["instance", "random-coupled", "--m", "3", "--param", "m=4"], "disagrees"),
    (["instance", "random-coupled", "--d", "0"], "d must be >= 1"),
    (["instance", "nonsmooth-shared", "--n", "10", "--dt", "10", "--pt", "1"], "would fix x̃"),
    (["instance", "convex-mixed", "--n", "10", "--dt", "12", "--pt", "2"], "n·pt = 10·2 = 20"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, argv, match):
    out = tmp_path / "out"
    assert run(argv + ["--out", str(out)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1  # one line
    assert err.count(f"{argv[1]}:") <= 1  # the family named once
    _nothing_written(tmp_path)


def test_unwritable_or_occupied_output_exits_2(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert run(["instance", "random-consensus", "--out", str(tmp_path / "file")]) == EXIT_USAGE
    assert run(["instance", "random-consensus", "--out", str(tmp_path / "file" / "sub")]) == EXIT_USAGE
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "notes.txt").write_text("mine")
    assert run(["instance", "random-consensus", "--out", str(tmp_path / "dir")]) == EXIT_USAGE
    assert os.listdir(tmp_path / "dir") == ["notes.txt"]
    if os.geteuid() != 0:  # root ignores permission bits
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        try:
            assert run(["instance", "random-consensus", "--out", str(ro / "x")]) == EXIT_USAGE
        finally:
            ro.chmod(0o700)
    _nothing_written(tmp_path, keep=["file", "dir"] + (["ro"] if os.geteuid() != 0 else []))
    assert "error" in capsys.readouterr().err


def test_write_failure_exits_2_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    import mixbounds.instances.io as iio

    monkeypatch.setattr(iio, "_write_npy", lambda *a: (_ for _ in ()).throw(OSError("no space left (simulated)")))
    assert run(["instance", "random-mixed", "--out", str(tmp_path / "o")]) == EXIT_USAGE
    assert "simulated" in capsys.readouterr().err
    _nothing_written(tmp_path)


def test_reference_failure_exits_1_and_writes_nothing(tmp_path, monkeypatch, capsys):
    def boom(problem):
        raise ValueError("reference solution: relative KKT residual 1e-3 exceeds 1e-9")

    monkeypatch.setattr(cli_instance, "reference_solution", boom)
    assert run(["instance", "random-consensus", "--out", str(tmp_path / "o")]) == EXIT_FAIL
    assert "KKT residual" in capsys.readouterr().err
    _nothing_written(tmp_path)


def test_usage_errors_exit_2(tmp_path):
    for argv in (["instance", "random-consensus"],  # --out is required
                 ["instance", "random-consensus", "--kappa-W", "abc", "--out", str(tmp_path / "o")],
                 ["instance", "--out", str(tmp_path / "o")]):
        with pytest.raises(SystemExit) as e:
            run(argv)
        assert e.value.code == EXIT_USAGE
    _nothing_written(tmp_path)


def test_rerun_replaces_the_instance(tmp_path):
    out = str(tmp_path / "o")
    assert run(["instance", "random-consensus", "--seed", "1", "--out", out]) == EXIT_OK
    assert run(["instance", "random-consensus", "--seed", "2", "--out", out]) == EXIT_OK
    assert load_instance(out).seed == 2
    assert sorted(os.listdir(tmp_path)) == ["o"]


def test_module_entry_point(tmp_path):
    out = tmp_path / "lg"
    r = subprocess.run([sys.executable, "-P", "-m", "mixbounds", "instance", "local-global", "--kappa-f", "50",
                        "--n", "4", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "app:problem_formulations" in r.stdout
    inst = load_instance(out)
    assert np.all(np.isfinite(inst.x_star))
    r = subprocess.run([sys.executable, "-P", "-m", "mixbounds", "instance", "random-coupled", "--kappa-AC", "0.1",
                        "--out", str(tmp_path / "bad")], capture_output=True, text=True)
    assert r.returncode == 2 and not (tmp_path / "bad").exists()


def test_build_and_reference_run_with_one_blas_thread(tmp_path, monkeypatch):
    """The build and the reference solve run under threadpoolctl's limit BLAS_THREADS (small per-node products)."""
    from threadpoolctl import threadpool_info

    blas = lambda: {i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"}  # noqa: E731
    seen = {}
    real_build, real_ref = instances.families.build, instances.reference.kkt.reference_solution

    def build(name, **params):
        seen["build"] = blas()
        return real_build(name, **params)

    def ref(problem, **kw):
        seen["reference"] = blas()
        return real_ref(problem, **kw)

    monkeypatch.setattr(cli_instance, "build", build)
    monkeypatch.setattr(cli_instance, "reference_solution", ref)
    assert run(["instance", "random-coupled", "--n", "4", "--out", str(tmp_path / "o")]) == EXIT_OK
    assert seen == {"build": {cli_instance.BLAS_THREADS}, "reference": {cli_instance.BLAS_THREADS}}
    if max(blas(), default=1) >= 2:  # negative control (a BLAS with 2+ threads): the limit is the one applied
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=2):  # what a limit of 2 gives here (a single-threaded BLAS loaded by an
            two = blas()                   # earlier test, e.g. a solver's, stays at 1)
        monkeypatch.setattr(cli_instance, "BLAS_THREADS", 2)
        assert run(["instance", "random-coupled", "--n", "4", "--out", str(tmp_path / "o2")]) == EXIT_OK
        assert seen["build"] == two and 2 in two


def test_summary_line_sizes_are_summarised():
    """Per-node sizes print as one value when all nodes agree, else as a range (10⁴ nodes printed 10⁴ entries)."""
    from mixbounds.instances.families import build

    from mixbounds.cli.instance import _size_text, summary_lines

    assert _size_text([1] * 10_000) == "1" and _size_text([1, 3, 2]) == "1…3 (per node)" and _size_text(7) == "7"
    line = summary_lines(build("random-mixed", n=50, seed=0), None)[1]
    assert "pt = 1" in line and "[" not in line, line


#: the written reference equals the family's own to this relative distance (the same computation, BLAS threads aside)
FAMILY_REF_RTOL = 1e-12


@pytest.mark.parametrize("family,argv", [("convex-coupled", []),
                                         ("nonsmooth-mixed", ["--variant", "strongly-convex"]),
                                         ("nonsmooth-coupled", [])])
def test_families_with_their_own_reference_keep_it(tmp_path, capsys, monkeypatch, family, argv):
    """Convex families' x* is the minimiser nearest to the start, nonsmooth ones' the LP/QP optimum that sizes their
    box: the CLI writes it as built and never calls the generic reference solve (which cannot solve a nonsmooth
    problem; for a convex quadratic it now returns the same minimum-norm point, tests/test_reference_paths.py)."""
    from mixbounds.instances.families import build

    def generic(problem):
        raise ValueError("the generic reference solve was called")

    monkeypatch.setattr(cli_instance, "reference_solution", generic)
    out = tmp_path / family
    assert run(["instance", family, *argv, "--format", "npz", "--out", str(out)]) == EXIT_OK
    assert "the family's own" in capsys.readouterr().out
    built = build(family, **({"variant": "strongly-convex"} if "--variant" in argv else {}))
    got = load_instance(out).x_star
    assert np.linalg.norm(got - built.x_star) <= FAMILY_REF_RTOL * np.linalg.norm(built.x_star)
    # the control: a family without its own reference goes through the (here refusing) generic solve
    assert run(["instance", "random-coupled", "--n", "4", "--out", str(tmp_path / "generic")]) == EXIT_FAIL
    assert "the generic reference solve was called" in capsys.readouterr().err


def test_sparse_reference_iterations_are_printed_and_the_handler_removed(tmp_path, monkeypatch, capsys):
    """A build through the sparse interior point (forced: DENSE_LIFTED_MAX = 0) prints one line per iteration to
    stderr, the last at the tolerance; the dense path (control) prints none, and no handler outlives the command."""
    import logging

    from mixbounds.instances import nonsmooth as ns
    from mixbounds.instances.reference import lad_interior_point as lad

    argv = ["instance", "nonsmooth-coupled-local", "--n", "5", "--d", "5", "--m", "2", "--p", "2", "--graph", "ring"]
    assert run(argv + ["--out", str(tmp_path / "dense")]) == EXIT_OK
    assert "interior point" not in capsys.readouterr().err
    monkeypatch.setattr(ns, "DENSE_LIFTED_MAX", 0)
    assert run(argv + ["--out", str(tmp_path / "sparse")]) == EXIT_OK
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "interior point" in ln]
    iterations = load_instance(tmp_path / "sparse").params["reference"]["iterations"]
    assert len(lines) == iterations + 1 and lines[0].startswith("mixbounds instance: reference (sparse interior point): "
                                                                "iteration 0,")
    assert float(lines[-1].split("residual ")[1].split()[0]) <= lad.LAD_TOL
    assert logging.getLogger("mixbounds.instances").handlers == []


def test_reference_that_does_not_converge_exits_1_and_writes_nothing(tmp_path, monkeypatch, capsys):
    """The family's sparse interior point stopped at its iteration cap (3 here) is a failed reference, exit 1 (not
    a usage error, exit 2), with its residuals in one line; nothing is written."""
    from mixbounds.instances import nonsmooth as ns
    from mixbounds.instances.reference import lad_interior_point as lad

    monkeypatch.setattr(ns, "DENSE_LIFTED_MAX", 0)
    monkeypatch.setattr(lad, "LAD_MAX_ITER", 3)
    monkeypatch.setattr(lad.lad_interior_point, "__kwdefaults__",
                        dict(lad.lad_interior_point.__kwdefaults__, max_iter=3))
    out = tmp_path / "x"
    code = run(["instance", "nonsmooth-coupled", "--n", "5", "--d", "4", "--m", "2", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_FAIL
    assert ("nonsmooth-coupled: reference solution failed: sparse LAD interior point did not converge in 3 "
            "iterations") in err
    assert not out.exists()
