# aorta-probe Python helper. Embedded in the aorta-probe binary and run once
# per collection as `PYTHON -` with this text on stdin (docs/python.md).
#
# It reports facts only the workload's interpreter can know (import outcomes,
# module attributes, /proc/self/maps after `import torch`, importlib
# metadata) and derives nothing the Go side can derive itself. Rules:
#   * standard library only; runs on Python 3.6+ (importlib.metadata, 3.8+,
#     is optional);
#   * the environment and sys.path are used as they are (the probe passes
#     neither -I nor -E: Buck link trees and .par archives need PYTHONPATH);
#   * fd 1 and fd 2 are pointed at /dev/null before anything is imported, so
#     packages that print at import time cannot corrupt the result; the facts
#     go to a private duplicate of the original stdout;
#   * the output is one JSON array, one element per line, written as each
#     step finishes ("[", elements, "]"). A {"begin": STEP} element precedes
#     each step that may hang, so a helper killed at its timeout still tells
#     the probe what it had learned and where it stopped.
import os
import sys


def _redirect():
    out = os.dup(1)
    try:
        sink = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        import tempfile

        sink = os.dup(tempfile.TemporaryFile().fileno())
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    os.close(sink)
    return out


_OUT = _redirect()
_FIRST = [True]


def _lazy(name, src):
    # A stand-in for the top-level function name. The stdin payload ships
    # every function defined below as its source text and this stand-in,
    # and compiles a function on its first call (docs/python.md, "Speed":
    # most runs need half of the code); run as a file, the helper defines
    # them at once and never calls this.
    def stand_in(*args, **kwargs):
        g = globals()
        if g.get(name) is stand_in:
            exec(compile(src, "<aorta-probe helper>", "exec"), g)
        return g[name](*args, **kwargs)

    return stand_in


# Speed (docs/python.md, "Speed"): the helper is what the default run waits
# for, so it imports nothing it may not need. json and re are not imported
# up front (the facts are written by _dumps below; re is compiled on first
# use), importlib.metadata only when a distribution it is asked about may
# exist (_may_have_dist), platform only off CPython. `PYTHON - --exact`
# turns every shortcut off (the differential test compares both).
_EXACT = "--exact" in sys.argv[1:]

try:
    if _EXACT:
        raise ImportError
    from _json import encode_basestring_ascii as _enc_str
except ImportError:
    _enc_str = None

_INF = float("inf")


def _dumps(o, out):
    # json.dumps(o, ensure_ascii=True, default=_jsonable), as its C
    # encoder does it (same type tests in the same order).
    if o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, str):
        out.append(_enc_str(o))
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        if o != o:
            out.append("NaN")
        elif o == _INF:
            out.append("Infinity")
        elif o == -_INF:
            out.append("-Infinity")
        else:
            out.append(float.__repr__(o))
    elif isinstance(o, (list, tuple)):
        out.append("[")
        for i, e in enumerate(o):
            if i:
                out.append(", ")
            _dumps(e, out)
        out.append("]")
    elif isinstance(o, dict):
        out.append("{")
        for i, (k, v) in enumerate(o.items()):
            if i:
                out.append(", ")
            out.append(_enc_str(k))  # the helper's keys are all str
            out.append(": ")
            _dumps(v, out)
        out.append("}")
    else:
        _dumps(_jsonable(o), out)


def _write(data):
    while data:
        n = os.write(_OUT, data)
        data = data[n:]


def emit(obj):
    if _enc_str is not None:
        out = []
        _dumps(obj, out)
        text = "".join(out)
    else:
        import json

        text = json.dumps(obj, ensure_ascii=True, default=_jsonable)
    _write((("[\n" if _FIRST[0] else ",\n") + text).encode("ascii"))
    _FIRST[0] = False


def _jsonable(v):
    try:
        return str(v)
    except BaseException:
        return None


def plain(v):
    # A JSON-safe copy of a scalar attribute value (raw when it is JSON).
    if v is None or isinstance(v, (bool, int, float, str)):
        if isinstance(v, str):
            return str(v)  # a str subclass such as TorchVersion
        return v
    return _jsonable(v)


def exc_name(e):
    return type(e).__name__


def _bootstrap():
    # The import system's own module, frozen into CPython: importlib's
    # _bootstrap is this module, and importlib.import_module of a name
    # without a leading dot is its _gcd_import. Using it directly spares
    # importing importlib itself (1 ms). None under --exact or where it is
    # missing (not CPython): importlib then.
    if _EXACT:
        return None
    return sys.modules.get("_frozen_importlib")


def do_import(name):
    # (module, outcome): outcome is ok, ImportError or the class name.
    load = getattr(_bootstrap(), "_gcd_import", None)
    if load is None:
        import importlib

        load = importlib.import_module
    try:
        return load(name), "ok"
    except ImportError:
        return None, "ImportError"
    except BaseException as e:  # SystemExit from a package counts too
        return None, exc_name(e)


def find_spec(name):
    # importlib.util.find_spec(name) for a top-level name: the module's
    # __spec__ when it is imported, else what the import system would find.
    # Done here with importlib's own _find_spec, as importlib.util does, so
    # that importlib.util (and contextlib, collections, functools behind it)
    # is not imported.
    _find = getattr(_bootstrap(), "_find_spec", None)
    if _find is None or "." in name:
        import importlib.util

        return importlib.util.find_spec(name)
    if name in sys.modules:
        module = sys.modules[name]
        if module is None:
            return None
        try:
            spec = module.__spec__
        except AttributeError:
            raise ValueError("{}.__spec__ is not set".format(name)) from None
        if spec is None:
            raise ValueError("{}.__spec__ is None".format(name))
        return spec
    return _find(name, None)


# Distribution names the helper asks importlib.metadata about, normalised
# (lower case, runs of "-", "_", "." as "_"); rocm covers rocm-sdk-core.
_DISTS = ("rocm", "torchrec", "amd_aiter", "aiter")
_MAY_HAVE = {}


def _norm(name):
    out, sep = [], False
    for c in name.lower():
        if c in "-_.":
            sep = True
            continue
        if sep and out:
            out.append("_")
        sep = False
        out.append(c)
    return "".join(out)


def _scan_dists():
    # Which of _DISTS importlib.metadata could find: a superset, from the
    # directory listings of sys.path, where its path finder looks (Python
    # 3.8 to 3.13): entries named NAME[-VERSION].dist-info or .egg-info, in
    # any case. A path entry that is a file (a zip, an .egg, a .par) or an
    # .egg directory, a path entry that is not a string, or a metadata
    # finder on sys.meta_path other than the path finder makes every name
    # possible.
    every = set(_DISTS)
    if _EXACT:
        return every
    external = sys.modules.get("_frozen_importlib_external")
    path_finder = getattr(external, "PathFinder", None)
    for f in sys.meta_path:
        if f is not path_finder and getattr(f, "find_distributions", None) is not None:
            return every
    found = set()
    for entry in sys.path:
        if not isinstance(entry, str) or entry.rstrip("/").lower().endswith(".egg"):
            return every
        try:
            names = os.listdir(entry or ".")
        except OSError:
            if os.path.isfile(entry or "."):
                return every
            continue
        for n in names:
            low = n.lower()
            # Only such a name (after separators) can normalise to one of
            # _DISTS: the test spares _norm for a site-packages of others.
            if not low.endswith((".dist-info", ".egg-info")) or \
                    not low.lstrip("-_.").startswith(("rocm", "torchrec", "amd", "aiter")):
                continue
            norm = _norm(low)
            for d in _DISTS:
                if norm.startswith(d):
                    found.add(d)
    return found


def may_have_dist(name):
    # False only when importlib.metadata cannot find distribution name
    # (so it need not be imported and asked).
    if "scan" not in _MAY_HAVE:
        try:
            _MAY_HAVE["scan"] = _scan_dists()
        except BaseException:
            _MAY_HAVE["scan"] = set(_DISTS)
    n = _norm(name)
    return any(n.startswith(d) and d in _MAY_HAVE["scan"] for d in _DISTS)


def metadata(*names):
    # importlib.metadata, or None when it is missing (Python < 3.8) or
    # none of names may have a distribution.
    if not any(may_have_dist(n) for n in names):
        return None
    try:
        import importlib.metadata as md
    except ImportError:
        md = None
    return md


_VERSION_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+"


def python_version():
    # platform.python_version(): on CPython the leading version token of
    # sys.version (the part platform's parser takes), with ".0" added when
    # it has two components; elsewhere platform itself.
    v = sys.version
    i = 0
    while i < len(v) and v[i] in _VERSION_CHARS:
        i += 1
    rest = v[i:].lstrip()
    if _EXACT or sys.implementation.name != "cpython" or i == 0 or not rest.startswith(("(", "|")):
        import platform

        return platform.python_version()
    ver = v[:i]
    if len(ver.split(".")) == 2:
        ver += ".0"
    return ver


def str_or_none(v):
    return str(v) if isinstance(v, str) else None


# --- interpreter --------------------------------------------------------

def interpreter_facts():
    facts = {
        "python_version": python_version(),
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "executable": sys.executable,
        "rocm_sdk_core": None,
        "dists": {},
    }
    # importlib.metadata.version of rocm and rocm-sdk-core (step 3 of the
    # rocm.version chain, docs/fields-process.md).
    md = metadata("rocm", "rocm-sdk-core")
    for name in ("rocm", "rocm-sdk-core"):
        d = {"state": "missing"}
        if md is not None and may_have_dist(name):
            try:
                d = {"state": "ok", "value": plain(md.version(name))}
            except md.PackageNotFoundError:
                pass
            except BaseException as e:
                d = {"state": "raised", "exc": exc_name(e)}
        facts["dists"][name] = d
    try:
        spec = find_spec("_rocm_sdk_core")
        if spec is not None:
            d = None
            if spec.origin and spec.origin != "namespace":
                d = os.path.dirname(spec.origin)
            elif spec.submodule_search_locations:
                d = list(spec.submodule_search_locations)[0]
            if d:
                facts["rocm_sdk_core"] = str(d)
    except BaseException:
        pass
    return facts


# --- torch ----------------------------------------------------------------

def getter_state(fn):
    if fn is None:
        return {"state": "missing"}
    try:
        return {"state": "ok", "value": bool(fn())}
    except BaseException as e:
        return {"state": "raised", "exc": exc_name(e)}


def torch_facts(torch):
    f = {}
    f["file"] = plain(getattr(torch, "__file__", None))
    v = getattr(torch, "__version__", None)
    f["version"] = None if v is None else str(v)
    tv = getattr(torch, "version", None)
    if tv is None:
        f["version_module"] = None
    else:
        f["version_module"] = {
            "git_version": plain(getattr(tv, "git_version", None)),
            "hip": plain(getattr(tv, "hip", None)),
            "cuda": plain(getattr(tv, "cuda", None)),
            "debug": plain(getattr(tv, "debug", None)),
        }
    show = getattr(getattr(torch, "__config__", None), "show", None)
    if show is None:
        f["config_show"] = {"state": "missing"}
    else:
        try:
            f["config_show"] = {"state": "ok", "text": str(show())}
        except BaseException as e:
            f["config_show"] = {"state": "raised", "exc": exc_name(e)}
    arch = getattr(getattr(torch, "cuda", None), "get_arch_list", None)
    if arch is None:
        f["arch_list"] = {"state": "missing"}
    else:
        try:
            f["arch_list"] = {"state": "ok", "value": [plain(a) for a in list(arch())]}
        except BaseException as e:
            f["arch_list"] = {"state": "raised", "exc": exc_name(e)}
    try:
        bc = getattr(getattr(torch, "backends", None), "cuda", None)
    except BaseException:
        bc = None
    if bc is None:
        f["backends_cuda"] = None
    else:
        f["backends_cuda"] = {}
        for name in ("flash_sdp_enabled", "mem_efficient_sdp_enabled",
                     "math_sdp_enabled", "cudnn_sdp_enabled"):
            f["backends_cuda"][name] = getter_state(getattr(bc, name, None))
    try:
        with open("/proc/self/maps", "rb") as fh:
            f["maps"] = fh.read().decode("utf-8", "replace")
    except BaseException as e:
        f["maps"] = None
        f["maps_error"] = exc_name(e)
    return f


_TORCH = {"facts": None, "slow_failure": None}

# A failed import is retried at every call site, as the Python probe's
# import calls do. A torch whose failing import is slow (a HIP runtime
# timing out, say) would multiply that time by ten and run into the
# helper's timeout, so a failure that took longer than this is reused for
# the remaining sites instead of being retried.
_SLOW_FAILURE_SEC = 1.0


def torch_site(site):
    import time

    emit({"begin": "torch:" + site})
    if _TORCH["slow_failure"] is not None:
        emit({"torch_site": site, "outcome": _TORCH["slow_failure"]})
        return
    t0 = time.time()
    mod, outcome = do_import("torch")
    if mod is None and outcome != "ImportError" and time.time() - t0 > _SLOW_FAILURE_SEC:
        _TORCH["slow_failure"] = outcome
    emit({"torch_site": site, "outcome": outcome})
    if mod is not None and _TORCH["facts"] is None:
        emit({"begin": "torch facts"})
        _TORCH["facts"] = torch_facts(mod)
        emit({"torch": _TORCH["facts"]})


# --- triton, fbgemm_gpu ---------------------------------------------------

def package_facts(name):
    emit({"begin": name})
    mod, outcome = do_import(name)
    f = {"outcome": outcome, "version": None, "attrs": []}
    if mod is not None:
        v = getattr(mod, "__version__", None)
        f["version"] = None if v is None else str(v)
        attrs = []
        for a in ("__git_version__", "git_version", "__commit__", "__sha__"):
            attrs.append(str_or_none(getattr(mod, a, None)))
        vm = getattr(mod, "version", None)
        attrs.append(str_or_none(getattr(vm, "git_version", None)) if vm is not None else None)
        f["attrs"] = attrs
    emit({name: f})


# --- torchrec (docs/python.md: run here in full) ----------------------------

def torchrec_facts():
    emit({"begin": "torchrec"})
    spec, spec_exc = None, None
    try:
        spec = find_spec("torchrec")
    except BaseException as e:
        spec_exc = e
    if spec is None and spec_exc is None and not may_have_dist("torchrec"):
        # No import target and no distribution: the all-null block the
        # algorithm below gives, without compiling it (nor importing re).
        emit({"torchrec": {"block": {"package_version": None, "commit": None, "source_version": None,
                                     "source_commit": None, "distribution_version": None},
                           "reasons": []}})
        return
    torchrec_identity(spec, spec_exc)


# --- shared commit helpers (docs/python.md, for torchrec) ------------------

_RE = {}


def rx(name):
    # The compiled pattern name; re is imported and the patterns compiled
    # on first use (the helper of a machine without torchrec never needs
    # them).
    if not _RE:
        import re

        _RE["re"] = re
        _RE["commit_a"] = re.compile(r"[+.](?:\d+\.)?git([0-9a-f]{7,40})\b", re.I)
        _RE["commit_b"] = re.compile(r"[+.](?:\d+\.)?g([0-9a-f]{7,40})\b", re.I)
        _RE["hex"] = re.compile(r"[0-9a-fA-F]{7,40}")
        _RE["pep440"] = re.compile(
            r"\s*v?(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)"
            r"(?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?"
            r"(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?"
            r"(?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?"
            r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*",
            re.I,
        )
    return _RE[name]


def extract_commit(v):
    if not v:
        return None
    for pat in (rx("commit_a"), rx("commit_b")):
        m = pat.search(v)
        if m:
            return m.group(1).lower()
    return None


def commit_from_attr(v):
    if not isinstance(v, str):
        return None
    v = v.strip()
    if not v:
        return None
    c = extract_commit(v)
    if c:
        return c
    if rx("hex").fullmatch(v):
        return v.lower()
    return None


def torchrec_commit(v):
    c = extract_commit(v)
    if c:
        return c
    if isinstance(v, str) and "+" in v:
        local = v.split("+", 1)[1].split(".", 1)[0]
        if rx("hex").fullmatch(local) and not rx("re").fullmatch(r"d?\d{8}", local):
            return local.lower()
    return None


# --- torchrec identity ----------------------------------------------------

_PRE_NORM = {"alpha": "a", "beta": "b", "c": "rc", "pre": "rc", "preview": "rc"}


def vkey(s):
    if not isinstance(s, str):
        return None
    m = rx("pep440").fullmatch(s)
    if not m:
        return None
    try:
        epoch = int(m.group("epoch")) if m.group("epoch") else 0
        rel = [int(x) for x in m.group("release").split(".")]
        while len(rel) > 1 and rel[-1] == 0:
            rel.pop()
        pre = None
        if m.group("pre"):
            label = m.group("pre_l").lower()
            pre = (_PRE_NORM.get(label, label), int(m.group("pre_n") or 0))
        post = None
        if m.group("post"):
            post = int(m.group("post_n1") or m.group("post_n2") or 0)
        dev = None
        if m.group("dev"):
            dev = int(m.group("dev_n") or 0)
        local = None
        if m.group("local"):
            local = tuple(int(p) if p.isdigit() else p.lower()
                          for p in rx("re").split(r"[-_.]", m.group("local")))
        return (epoch, tuple(rel), pre, post, dev, local)
    except (ValueError, OverflowError):
        return None


def same_version(a, b):
    if a == b:
        return True
    ka, kb = vkey(a), vkey(b)
    if ka is None or kb is None:
        return False
    return ka == kb


def read_text(path):
    try:
        with open(path, encoding="utf-8") as fh:
            t = fh.read().strip()
    except BaseException:
        return None
    return t or None


def is_namespace(spec):
    if spec.origin is not None and spec.origin != "namespace":
        return False
    if spec.submodule_search_locations is None:
        return False
    loader = spec.loader
    return loader is None or type(loader).__name__ in ("NamespaceLoader", "_NamespaceLoader")


def read_version_py(spec):
    text = None
    for root in list(spec.submodule_search_locations or []):
        path = str(root) + "/version.py"
        t = None
        get_data = getattr(spec.loader, "get_data", None)
        if get_data is not None:
            try:
                t = get_data(path).decode("utf-8", "replace")
            except BaseException:
                t = None
        if t is None:
            t = read_text(path)
        if t is None:
            continue
        text = t
        break
    if text is None:
        return None, None
    re = rx("re")
    m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.M)
    version = m.group(1) if m else None
    if version is not None and vkey(version) is None:
        version = None
    m = re.search(r"^git_version\s*=\s*['\"]([^'\"]+)['\"]", text, re.M)
    commit = commit_from_attr(m.group(1)) if m else None
    return version, commit


def torchrec_dists(md):
    out = []
    for d in md.distributions():
        try:
            name = d.metadata["Name"]
            if name is None:
                continue
            if name.strip().lower().replace("_", "-") != "torchrec":
                continue
        except BaseException:
            continue
        out.append(d)
    return out


def disagreeing(md):
    try:
        versions = []
        for d in torchrec_dists(md):
            try:
                v = d.version
            except BaseException:
                continue
            if any(same_version(v, x) for x in versions):
                continue
            versions.append(v)
        if len(versions) > 1:
            return sorted(str(v) for v in versions)
        return []
    except BaseException:
        return []


def _inside(p, tree):
    return p == tree or p.startswith(tree.rstrip("/") + "/")


def owns(md, spec, dv):
    try:
        origin = os.path.abspath(spec.origin) if spec.origin else None
        roots = [os.path.abspath(str(r)) for r in (spec.submodule_search_locations or [])]
    except BaseException:
        return False
    try:
        dists = torchrec_dists(md)
    except BaseException:
        return False
    for d in dists:
        try:
            if not same_version(d.version, dv):
                continue
            du_text = d.read_text("direct_url.json")
            if du_text:
                import json

                du = json.loads(du_text)
                di = du.get("dir_info") if isinstance(du, dict) else None
                url = du.get("url") if isinstance(du, dict) else None
                if isinstance(di, dict) and di.get("editable") and isinstance(url, str):
                    import urllib.parse

                    u = urllib.parse.urlparse(url)
                    if u.scheme == "file" and u.netloc in ("", "localhost"):
                        import pathlib

                        src = str(pathlib.Path(urllib.parse.unquote(u.path)).resolve())
                        for p in [origin] + roots:
                            if p and _inside(p, src):
                                return True
            for f in d.files or []:
                loc = os.path.abspath(str(d.locate_file(f)))
                if origin and loc == origin:
                    return True
                for r in roots:
                    if _inside(loc, r):
                        return True
        except BaseException:
            continue
    return False


def torchrec_identity(spec, spec_exc):
    # The identity algorithm, given find_spec's answer (or what it raised).
    reasons = []
    res = {"package_version": None, "commit": None, "source_version": None,
           "source_commit": None, "distribution_version": None}
    spec_failed, namespace_spec = spec_exc is not None, False
    if spec_failed:
        reasons.append("torchrec.source_version: find_spec raised (%s); cannot tell whether "
                       "torchrec is importable" % exc_name(spec_exc))
    if spec is not None and is_namespace(spec):
        namespace_spec, spec = True, None
    if spec is not None:
        try:
            res["source_version"], res["source_commit"] = read_version_py(spec)
        except BaseException as e:
            reasons.append("torchrec.source_version: import target identity lookup raised (%s); "
                           "version unknown" % exc_name(e))
    md = metadata("torchrec")
    dv, valid, dis = None, False, []
    if md is not None:
        try:
            dv = md.version("torchrec")
        except md.PackageNotFoundError:
            pass
        except BaseException as e:
            reasons.append("torchrec.distribution_version: metadata lookup raised (%s)" % exc_name(e))
        else:
            res["distribution_version"] = plain(dv)
            valid = isinstance(dv, str) and vkey(dv) is not None
            if not valid:
                reasons.append("torchrec.distribution_version: metadata reports an invalid version %r; "
                               "retaining it separately but primary identity remains unknown" % (dv,))
            dis = disagreeing(md)
            if dis:
                reasons.append("torchrec.distribution_version: torchrec metadata disagrees across %d "
                               "distinct versions (%s); retaining the first on sys.path (%s) as "
                               "distribution_version, but not promoting an arbitrary one to primary "
                               "identity" % (len(dis), ", ".join(dis), dv))
    sv, sc = res["source_version"], res["source_commit"]
    owns_target = bool(spec is not None and sv is None and dv is not None and valid
                       and not dis and owns(md, spec, dv))
    if spec is None and dv is None and not spec_failed:
        emit({"torchrec": {"block": res, "reasons": reasons}})
        return
    if sv and dv and valid and not same_version(sv, dv):
        reasons.append("torchrec: import target reports version %s but distribution metadata reports "
                       "%s; reporting the import target, and both are recorded separately" % (sv, dv))
    if spec is not None and sv is None and not owns_target:
        if dv is None:
            reasons.append("torchrec.package_version: import target has no readable source version "
                           "and no distribution metadata; primary identity remains unknown")
        elif valid and not dis:
            reasons.append("torchrec.package_version: import target has no readable source version; "
                           "distribution metadata is retained separately and is not promoted because "
                           "ownership cannot be verified")
    elif spec is None and dv is not None and not spec_failed:
        kind = "PEP 420 namespace portion" if namespace_spec else "no import target"
        reasons.append("torchrec.package_version: distribution metadata exists but %s; metadata is "
                       "retained separately and primary identity remains unknown" % kind)
    if spec is not None:
        if sv:
            res["package_version"], res["commit"] = sv, sc or torchrec_commit(sv)
        elif owns_target:
            res["package_version"], res["commit"] = plain(dv), sc or torchrec_commit(dv)
    emit({"torchrec": {"block": res, "reasons": reasons}})


# --- aiter (docs/python.md) -------------------------------------------------

def aiter_facts():
    emit({"begin": "aiter"})
    mod, outcome = do_import("aiter")
    f = {"outcome": outcome, "version": None, "version_present": False, "file": None,
         "dists": [], "meta_spec": None}
    if mod is not None:
        v = getattr(mod, "__version__", None)
        if v is None:
            try:
                import importlib

                sub = importlib.import_module("aiter._version")
                v = getattr(sub, "__version__", None) or None
            except BaseException:
                v = None
        f["version"] = plain(v)
        f["version_present"] = v is not None
        f["file"] = plain(getattr(mod, "__file__", None))
    md = metadata("amd_aiter", "aiter")
    for cand in ("amd_aiter", "aiter"):
        d = {"name": cand, "state": "missing"}
        if md is not None and may_have_dist(cand):
            try:
                d = {"name": cand, "state": "ok", "value": plain(md.version(cand))}
            except md.PackageNotFoundError:
                pass
            except BaseException as e:
                d = {"name": cand, "state": "raised", "exc": exc_name(e)}
        f["dists"].append(d)
    try:
        spec = find_spec("aiter_meta")
        if spec is not None:
            f["meta_spec"] = {
                "origin": plain(spec.origin),
                "locations": [str(x) for x in (spec.submodule_search_locations or [])],
            }
    except BaseException:
        f["meta_spec"] = None
    emit({"aiter": f})


def main():
    emit({"interpreter": interpreter_facts()})
    torch_site("rocm.version")
    torch_site("composable_kernel.pytorch_bundled")
    torch_site("composable_kernel.pytorch_use_ck_sdpa")
    package_facts("Tensile")
    package_facts("triton")
    package_facts("fbgemm_gpu")
    torch_site("fbgemm.pytorch_use_fbgemm")
    torchrec_facts()
    aiter_facts()
    for site in ("aotriton", "pytorch_version", "pytorch_build.install_kind",
                 "pytorch_build", "pytorch_build.flags", "pytorch_sdpa"):
        torch_site(site)
    emit({"done": True})
    _write(b"\n]\n")


try:
    main()
except BaseException as e:  # report, never die silently
    try:
        emit({"helper_error": exc_name(e) + ": " + str(e)})
        _write(b"\n]\n")
    except BaseException:
        pass
os._exit(0)
