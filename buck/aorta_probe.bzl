"""Run aorta-probe as a Buck2 action, so that it executes where Buck2 puts the action.

A probe run from a shell describes the client host. These macros make the
probe itself a Buck2 action (a genrule writing $OUT, or a test), so it runs
wherever Buck2 places that action: the local executor or a remote-execution
worker. See docs/buck2.md for the runbook.

Placement (docs/buck2.md#2-running-the-probe-as-an-action):
  "default"       the execution platform decides (local, remote or hybrid).
  "local_only"    genrule: the prelude's local-only label
                  (uses_local_filesystem_abspaths, which is also true: the
                  probe reads /opt/rocm, /proc and /sys); test: no RE profile,
                  so buck2 runs it locally.
  "prefer_local"  genrule: the prelude's prefer-local label (large_copy);
                  test: an RE profile with local_enabled = True.
  "remote"        genrule: the execution platform must be remote-enabled
                  (run with --remote-only to forbid a local fallback); test:
                  an RE profile built from re_capabilities and re_use_case.

Every action carries AORTA_PROBE_NONCE in its env, read from
`-c aorta_probe.nonce=...`: a new nonce changes the action digest, so a fresh
run is forced and a cache hit is visible (the nonce in the document's
provenance would be stale). AORTA_RE_IMAGE, when re_image is given, declares
the worker image (the $AORTA_RE_IMAGE convention of docs/buck2.md).
"""

PLACEMENTS = ["default", "local_only", "prefer_local", "remote"]

_LOCAL_ONLY_LABEL = "uses_local_filesystem_abspaths"
_PREFER_LOCAL_LABEL = "large_copy"

def _check_placement(placement):
    if placement not in PLACEMENTS:
        fail("aorta_probe: placement must be one of {}, got {}".format(PLACEMENTS, repr(placement)))

def _action_env(nonce, re_image, env):
    """The env every probe action gets: the nonce, the declared image, the caller's env."""
    out = {}
    out.update(env)
    out["AORTA_PROBE_NONCE"] = nonce if nonce != None else read_config("aorta_probe", "nonce", "")
    if re_image:
        out["AORTA_RE_IMAGE"] = re_image
    return out

def _genrule_labels(placement, labels):
    """The caller's labels plus the prelude label that realises placement for a genrule."""
    out = list(labels)
    if placement == "local_only":
        out.append(_LOCAL_ONLY_LABEL)
    elif placement == "prefer_local":
        out.append(_PREFER_LOCAL_LABEL)
    return out

def _shell_quote(s):
    return "'" + s.replace("'", "'\"'\"'") + "'"

def aorta_probe_genrule(
        name,
        probe = "root//:aorta-probe",
        out = "env.json",
        placement = "default",
        nonce = None,
        re_image = None,
        args = [],
        env = {},
        labels = [],
        **kwargs):
    """A genrule whose action runs the probe and writes its document to $OUT.

    Args:
      name: the target name.
      probe: the aorta-probe binary target; $(exe ...) builds it for the
        execution platform, which is where the action runs.
      out: the output file name.
      placement: one of PLACEMENTS.
      nonce: the AORTA_PROBE_NONCE value; default read_config("aorta_probe", "nonce", "").
      re_image: the worker image to declare as AORTA_RE_IMAGE, or None.
      args: extra aorta-probe flags (for example ["--extended"]).
      env: extra action env.
      labels: extra labels.
      **kwargs: passed to genrule (visibility, type, ...).
    """
    _check_placement(placement)
    all_labels = _genrule_labels(placement, labels)
    cmd = " ".join(
        ["$(exe {})".format(probe), "--execution-context", "buck2_action"] +
        [_shell_quote(a) for a in args] +
        ["\"$OUT\""],
    )
    native.genrule(
        name = name,
        out = out,
        cmd = cmd,
        env = _action_env(nonce, re_image, env),
        labels = all_labels,
        **kwargs
    )

def aorta_probe_test(
        name,
        probe = "root//:aorta-probe",
        placement = "default",
        nonce = None,
        re_image = None,
        re_capabilities = None,
        re_use_case = None,
        args = [],
        env = {},
        labels = [],
        **kwargs):
    """An sh_test that runs the probe as the test, printing the document to the test's stdout.

    Args:
      name: the target name.
      probe: the aorta-probe binary target (its RunInfo is the test command).
      placement: one of PLACEMENTS; "remote" and "prefer_local" need
        re_capabilities and re_use_case.
      nonce: the AORTA_PROBE_NONCE value; default read_config("aorta_probe", "nonce", "").
      re_image: the worker image to declare as AORTA_RE_IMAGE, or None.
      re_capabilities: the RE platform properties of the test (a dict).
      re_use_case: the RE use case.
      args: extra aorta-probe flags.
      env: extra test env.
      labels: extra labels.
      **kwargs: passed to sh_test.
    """
    _check_placement(placement)
    extra = {}
    all_labels = list(labels)
    if placement in ("remote", "prefer_local"):
        if not re_capabilities or not re_use_case:
            fail("aorta_probe_test: placement {} needs re_capabilities and re_use_case".format(repr(placement)))
        profile = {"capabilities": re_capabilities, "use_case": re_use_case}
        if placement == "prefer_local":
            profile["local_enabled"] = True
        extra["remote_execution"] = profile
    elif placement == "local_only":
        all_labels.append(_LOCAL_ONLY_LABEL)
    native.sh_test(
        name = name,
        test = probe,
        args = ["--execution-context", "buck2_action"] + list(args) + ["-"],
        env = _action_env(nonce, re_image, env),
        labels = all_labels,
        **dict(kwargs, **extra)
    )

ENV_NAMES_PLACEMENTS = {"local": "local_only", "remote": "remote"}

def aorta_probe_env_names(
        name,
        probe = "root//:aorta-probe",
        nonce = None,
        re_image = None,
        env = {},
        labels = [],
        **kwargs):
    """Two genrules that record the environment variable NAMES of a Buck2 action, local and remote.

    The env-markers experiment (docs/buck2.md): `aorta-probe env-names`
    writes the sorted names of its environment, never their values except
    the allow-listed placement markers (docs/triage.md). {name}-local runs
    on the local executor (the prelude's local-only label); {name}-remote
    has no local label: build it with --remote-only so that it cannot fall
    back to local. Compare the two outputs with
    `aorta-probe diff --env-markers`: a name present only remotely is a
    candidate native remote-execution marker.

    Args:
      name: the prefix of the two target names ({name}-local, {name}-remote).
      probe: the aorta-probe binary target; $(exe ...) builds it for the
        execution platform, which is where the action runs.
      nonce: the AORTA_PROBE_NONCE value; default read_config("aorta_probe", "nonce", "").
      re_image: the worker image to declare as AORTA_RE_IMAGE, or None.
      env: extra action env.
      labels: extra labels.
      **kwargs: passed to both genrules (visibility, ...).
    """
    for suffix, placement in sorted(ENV_NAMES_PLACEMENTS.items()):
        native.genrule(
            name = "{}-{}".format(name, suffix),
            out = "env-names-{}.json".format(suffix),
            cmd = "$(exe {}) env-names \"$OUT\"".format(probe),
            env = _action_env(nonce, re_image, env),
            labels = _genrule_labels(placement, labels),
            **kwargs
        )
