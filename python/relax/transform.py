"""Pipelines and passes: relax.transform.run(mod, "normalize,fuse-ops") or a YAML file."""
import os

from . import _relax


def run(mod, pipeline, time_passes=False, verify_each=None, dump_ir_before=(), dump_ir_after=(),
        dump_dir="", jobs=0, report=False):
    """Runs `pipeline` over `mod` and returns the new module (mod itself is not changed).

    pipeline: a one-line pipeline ("normalize,fuse-ops{max-depth=4}"), a YAML file or a built-in
    name. The instruments are those of relax-driver (time_passes, verify_each, dump_ir_before/
    after: pass names or "all", dump_dir). With report=True returns (module, report dict).
    """
    if isinstance(pipeline, os.PathLike):
        pipeline = os.fspath(pipeline)
    out, rep = _relax.run_pipeline(mod, pipeline, time_passes=time_passes, verify_each=verify_each,
                                   dump_ir_before=list(dump_ir_before),
                                   dump_ir_after=list(dump_ir_after), dump_dir=dump_dir, jobs=jobs)
    return (out, rep) if report else out


def pipeline_passes(spec):
    """The passes a pipeline (line, YAML file or name) runs, each spelled with its options."""
    return _relax.pipeline_passes(os.fspath(spec))


def list_passes():
    """Every registered pass (core, plugins, Python): name, summary, granularity, plugin, options."""
    return _relax.list_passes()


def builtin_pipelines():
    return _relax.builtin_pipelines()
