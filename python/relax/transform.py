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


def register_pass(name, fn, granularity="module", summary="", options=None):
    """Registers a pass written in Python under `name` (kebab-case), usable in pipeline lines,
    YAML files and relax.compile like any other pass (listed as plugin "python").

    granularity "module": fn(mod) or fn(mod, options) returns a relax.IRModule;
    "function": fn(func) or fn(func, mod, options) returns the new relax.ir.Expr function (each
    Relax function of the module in turn). options: {name: default} (bool, int, float, str),
    set in a pipeline as name{opt=value}. An exception fn raises becomes a RelaxError naming
    the pass.
    """
    import inspect
    nparams = len(inspect.signature(fn).parameters)
    if granularity == "module":
        body = fn if nparams >= 2 else (lambda mod, opts: fn(mod))
    elif granularity == "function":
        body = fn if nparams >= 3 else (lambda f, mod, opts: fn(f))
    else:
        body = fn  # the C++ side names the valid granularities
    _relax.register_pass(name, granularity, body, summary, dict(options or {}))
    return fn


def unregister_pass(name):
    """Removes a pass registered from Python; False when there was none."""
    return _relax.unregister_pass(name)


def module_pass(name, summary="", options=None):
    """Decorator: @module_pass("my-pass") def f(mod) -> mod registers f (see register_pass)."""
    return lambda fn: register_pass(name, fn, "module", summary or (fn.__doc__ or "").strip().split("\n")[0], options)


def function_pass(name, summary="", options=None):
    """Decorator: @function_pass("my-pass") def f(func) -> func registers f (see register_pass)."""
    return lambda fn: register_pass(name, fn, "function", summary or (fn.__doc__ or "").strip().split("\n")[0], options)
