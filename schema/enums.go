package schema

// The tables below complete the struct tags for the published JSON Schema
// (docs/schema.md): what a tag cannot say. Each key is "GoType.json_key".
// A test regenerates docs/schema/*.schema.json from the types and these
// tables and fails when the committed files drift.

// Enums lists the values a field may take; for a nullable field null is
// allowed as well. Values not listed here are free text.
var Enums = map[string][]any{
	"Snapshot.schema_version": {
		"1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8",
		"1.9", "1.10", "1.11", "1.12", "1.13", "1.14", "1.15", "1.16",
	},
	"RuntimeContext.type":               {"docker", "podman", "singularity", "baremetal"},
	"RuntimeContext.python_env":         {"conda", "venv", "system"},
	"ExecutionContext.probe_invocation": {"direct", "buck2_run", "buck2_action"},
	"ROCm.version_source":               {"version_file", "therock_manifest", "pip:rocm", "pip:rocm-sdk-core", "torch"},
	"ROCm.root_source":                  {"ROCM_PATH", "ROCM_HOME", "opt_rocm", "import:_rocm_sdk_core", "none"},
	"ROCm.layout":                       {"classic", "wheel"},
	"TheRock.status":                    {"present", "absent", "invalid"},
	"AMDGPUDriver.scope":                {"host_kernel"},
	"AMDGPUDriver.status":               {"present", "absent"},
	"AMDGPUDriver.package_manager":      {"dpkg", "rpm"},
	"RCCL.net_plugin_mode":              {"internal", "external", "unknown"},
	"Menu.status":                       {"ok", "partial"},
	"TensileCatalog.doc":                {TensileCatalogDoc},
	"TensileCatalog.status":             {"ok", "partial"},
	"MIOpenCatalog.doc":                 {MIOpenCatalogDoc},
	"MIOpenCatalog.status":              {"ok", "partial"},
	"MIOpenCatalog.db_dir_source":       {"MIOPEN_SYSTEM_DB_PATH", "default"},
	"RocFFTCatalog.doc":                 {RocFFTCatalogDoc},
	"RocFFTCatalog.status":              {"ok", "partial", "absent"},
	"KernelCache.source":                {"ROCFFT_RTC_SYS_CACHE_PATH", "rocm_lib"},
	"BuckInvocation.status":             {"not_requested", "buck_not_detected", "success", "failure"},
	"BuckInvocation.context_source":     {"none", "default_confirmed", "explicit", "unspecified"},
	"BuckInvocation.option_order":       {"mode", "config", "modifier"},
	"BuckInvocation.comparison":         {"not_compared"},
	"LibraryEntry.source":               {"buck"},
	"LibraryAlternate.source":           {"package"},
	"PytorchBuild.install_kind":         {"source", "editable", "wheel", "unknown"},
	"SubmoduleCommits._source":          {"git"},
	"NinjaHIPCC._parser":                {"ninja_defines", "legacy_findhip_per_source"},
	"Aiter.package_dist_name":           {"amd_aiter", "aiter"},

	// probe_provenance (docs/schema/probe-provenance.schema.json).
	"Provenance.implementation": {"aorta-probe"},
	"Provenance.detail":         {"compact", "full"},
	"ProbeRecord.outcome":       {"ok", "partial", "panic", "deadline"},
	"Isolation.verdict":         {"isolated", "no_signal", "not_captured"},
	"Identity.grade":            {"proof", "advisory", "none"},
	"Identity.answered_by":      {"kernel", "capture"},
	"NamespaceIdentity.type":    {"mnt", "net", "pid", "user", "uts", "ipc", "cgroup", "time"},
	"NamespaceIdentity.source":  {"NS_GET_ID", "NS_GET_MNTNS_ID"},
	"Placement.suggests":        {"local_action", "remote_action", "local_test", "not_an_action", "inconclusive", "not_captured"},
	"PlacementSignal.name": {
		"BUCK_SCRATCH_PATH", "BUCK2_DAEMON_UUID", "BUCK_BUILD_ID", "TMPDIR", "PWD", "PATH", "AORTA_RE_IMAGE",
	},
	"PlacementSignal.state": {"unset", "empty", "set"},
	"ROCmInstall.kind":      {"rocm_path", "opt_rocm", "distro", "therock", "wheel"},
	"ROCmInstall.version_source": {
		"info_version", "dpkg", "therock_manifest", "wheel_metadata", "hipconfig", "library_name",
	},
	"LoaderResolution.library": {"libamdhip64.so", "librocblas.so", "libhipblaslt.so"},
	"LoaderResolution.via":     {"LD_LIBRARY_PATH", "ld.so.cache", "default_dirs"},
	"Tuning.family":            {"MI300", "MI350"},
	"Tuning.product":           {"MI300X", "MI308X", "MI300A", "MI325X", "MI350X", "MI355X"},
	"TuningDeviation.family":   {"MI300", "MI350"},
}

// Variants constrains the shapes of a type with ",inline" members: the key
// is the type, then "+Inlined" for each inline struct present, and the value
// pins the discriminating fields of that shape. NIC is {"present": false|null}
// or, when present, its Tier-1 details (plus Tier 2 for AINIC);
// build_system is {"kind": "none"} or the buck2 shape.
var Variants = map[string]map[string][]any{
	"NIC":                       {"present": {false, nil}},
	"NIC+NICDetail":             {"present": {true}},
	"NIC+NICDetail+AINICDetail": {"present": {true}},
	"BuildSystem":               {"kind": {"none"}},
	"BuildSystem+Buck2":         {"kind": {"buck2"}},
}

// AddedIn is the schema version that introduced a key, from the history of
// docs/schema.md ("1.0" when absent). A document of an older 1.x version may
// lack the keys added after it.
var AddedIn = map[string]string{
	"Snapshot.rocblas":                          "1.1",
	"Snapshot.composable_kernel":                "1.1",
	"Snapshot.tensile":                          "1.1",
	"Snapshot.triton":                           "1.1",
	"Snapshot.fbgemm":                           "1.1",
	"Snapshot.aiter":                            "1.1",
	"Snapshot.aotriton":                         "1.1",
	"Snapshot.miopen":                           "1.1",
	"Snapshot.rccl":                             "1.1",
	"Snapshot.gpu_arch":                         "1.1",
	"Snapshot.host":                             "1.1",
	"Snapshot.pytorch_build":                    "1.1",
	"GemmLibrary.rocm_release_tweak":            "1.1",
	"GemmLibrary.kernel_db_revision":            "1.1",
	"PytorchBuild.flags":                        "1.2",
	"PytorchBuild.build_flags":                  "1.2",
	"PytorchBuild.binary_introspection":         "1.2",
	"Aiter.package_dist_name":                   "1.2",
	"Aiter.commit":                              "1.2",
	"Snapshot.build_system":                     "1.3",
	"Snapshot.library_introspection":            "1.4",
	"Snapshot.library_introspection_alternates": "1.4",
	"PytorchBuild.cmake_cache":                  "1.5",
	"PytorchBuild.ninja_hipcc":                  "1.5",
	"Aiter.hsa_tree":                            "1.5",
	"Snapshot.pytorch_sdpa":                     "1.5",
	"LibraryEntry.configured_target":            "1.6",
	"Snapshot.nics":                             "1.7",
	"RCCL.net_plugin_mode":                      "1.7",
	"RCCL.plugin_path":                          "1.7",
	"RCCL.plugin_lib_hash":                      "1.7",
	"RCCL.anp_lib_hash":                         "1.7",
	"RCCL.net_lib_hash":                         "1.7",
	"Triton.commit":                             "1.8",
	"FBGEMM.commit":                             "1.8",
	"Snapshot.tensile_catalog":                  "1.9",
	"Snapshot.miopen_catalog":                   "1.9",
	"Snapshot.rocfft_catalog":                   "1.9",
	"Snapshot.amdgpu_driver":                    "1.10",
	"Snapshot.container_detected":               "1.11",
	"Snapshot.execution_context":                "1.11",
	"Snapshot.probe_namespace":                  "1.12",
	"Snapshot.buck_invocation":                  "1.13",
	"Snapshot.torchrec":                         "1.14",
	"TorchRec.source_version":                   "1.15",
	"TorchRec.source_commit":                    "1.15",
	"TorchRec.distribution_version":             "1.15",
	"ROCm.root":                                 "1.16",
	"ROCm.lib_root":                             "1.16",
	"ROCm.root_source":                          "1.16",
	"ROCm.layout":                               "1.16",
	"ROCm.version_source":                       "1.16",
	"Snapshot.therock":                          "1.16",
	"GemmLibrary.upstream_commit":               "1.16",
	"GemmLibrary.upstream_commit_matches_tweak": "1.16",
}
