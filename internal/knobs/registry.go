package knobs

// envKnob is one record of the knob registry (docs/env-knobs.md). Only name
// and order reach env.json; the rest is metadata for docs/env-knobs.md.
type envKnob struct {
	name     string
	library  string // owning component
	category string // controlled vocabulary (docs/env-knobs.md)
	// sourceReference says where the entry can be re-verified.
	sourceReference string
	// referenceBuild is the build the statement refers to.
	referenceBuild string
	// consumer is what the value reaches (paraphrased, free text).
	consumer string
}

// The sentinel strings of the registry. The source references name the
// Python probe's repository (aorta), where the registry was audited: its
// scripts/audit_env_knobs.py read the libraries' string tables, and its
// pull requests #306 and #308 brought the knobs of schema <= 1.14. Neither
// is part of this repository.
const (
	buildGEMM      = "hipBLASLt 1.4.70002 + rocBLAS 5.0.70002 (ROCm 7.0.2)"
	buildNotScoped = "n/a -- not scoped to a specific library build"
	refHipBLASLtSO = "libhipblaslt.so string table (aorta scripts/audit_env_knobs.py)"
	refRocBLASSO   = "librocblas.so string table (aorta scripts/audit_env_knobs.py)"
	refBothSO      = "libhipblaslt.so + librocblas.so string tables (aorta scripts/audit_env_knobs.py)"
	refAbsent      = "absent from the reference build; upstream-only or shipped by a newer ROCm (aorta scripts/audit_env_knobs.py reports it as not_present)"
	refInherited   = "inherited from schema <= 1.14 (aorta PR #306 / #308); classification not traced to an upstream call site"
)

// envKnobs is the canonical knob list of schema 1.16 (docs/env-knobs.md): the
// 137 names env_vars records, in env.json order. It is the only source of
// env_vars; no other variable is ever written.
var envKnobs = []envKnob{
	{"HIP_VISIBLE_DEVICES", "hip-runtime", "gpu_scoping", refInherited, buildNotScoped, "which GPUs are visible"},
	{"ROCR_VISIBLE_DEVICES", "hip-runtime", "gpu_scoping", refInherited, buildNotScoped, "which GPUs are visible"},
	{"HSA_XNACK", "hsa-runtime", "runtime", refInherited, buildNotScoped, "HSA memory/paging"},
	{"HSA_KERNARG_POOL_SIZE", "hsa-runtime", "runtime", refInherited, buildNotScoped, "HSA memory/paging"},
	{"HSA_NO_SCRATCH_RECLAIM", "hsa-runtime", "runtime", refInherited, buildNotScoped, "HSA memory/paging"},
	{"HSA_OVERRIDE_GFX_VERSION", "hsa-runtime", "runtime", refInherited, buildNotScoped, "forces gfx target"},
	{"HSA_TOOLS_DISABLE_REGISTER", "hsa-runtime", "runtime", refInherited, buildNotScoped, "disables tool registration"},
	{"GPU_MAX_HW_QUEUES", "hip-runtime", "runtime", refInherited, buildNotScoped, "HW queue count"},
	{"AMDGCN_USE_BUFFER_OPS", "compiler", "codegen", refInherited, buildNotScoped, "buffer-op codegen"},
	{"DISABLE_TF32", "pytorch", "gemm_numeric", refInherited, buildNotScoped, "disables TF32/xf32"},
	{"PYTORCH_ROCM_ARCH", "pytorch", "codegen", refInherited, buildNotScoped, "gfx targets built/dispatched"},
	{"HIP_LAUNCH_BLOCKING", "hip-runtime", "runtime", refInherited, buildNotScoped, "synchronous launches"},
	{"NCCL_MAX_NCHANNELS", "rccl", "collectives", refInherited, buildNotScoped, "transport/channel selection"},
	{"NCCL_P2P_LEVEL", "rccl", "collectives", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_HCA", "rccl", "collectives", refInherited, buildNotScoped, "same"},
	{"NCCL_SOCKET_IFNAME", "rccl", "collectives", refInherited, buildNotScoped, "same"},
	{"RCCL_MSCCL_ENABLE", "rccl", "collectives", refInherited, buildNotScoped, "same"},
	{"RCCL_AINIC_ROCE", "rccl", "fabric", refInherited, buildNotScoped, "RoCE/fabric/net-plugin tuning"},
	{"NCCL_NET_PLUGIN", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_NET", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"RCCL_CTS_OFFLOAD_ENABLED", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_GID_INDEX", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_ROCE_VERSION_NUM", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_TC", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_FIFO_TC", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_GDR_FLUSH_DISABLE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_GDRCOPY_ENABLE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_USE_INLINE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_PCI_RELAXED_ORDERING", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_QPS_PER_CONNECTION", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_PXN_DISABLE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IGNORE_CPU_AFFINITY", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_NET_OPTIONAL_RECV_COMPLETION", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"RCCL_GDR_FLUSH_GPU_MEM_NO_RELAXED_ORDERING", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_TIMEOUT", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_SL", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_IB_SPLIT_DATA_ON_QPS", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_DMABUF_ENABLE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_CUMEM_ENABLE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"IONIC_LOCKFREE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"RCCL_DISABLE_RAIL_TREES", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"RCCL_LL128_FORCE_ENABLE", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"NCCL_WORK_FIFO_BYTES", "rccl", "fabric", refInherited, buildNotScoped, "same"},
	{"RCCL_GFX9_CHEAP_FENCE_OFF", "rccl", "fabric", refInherited, buildNotScoped, "gfx950 fence-ordering override (SDC investigation)"},
	{"FBGEMM_NO_JK", "fbgemm", "embedding_backend", refInherited, buildNotScoped, "TBE kernel variant / bounds check"},
	{"FBGEMM_TBE_V2", "fbgemm", "embedding_backend", refInherited, buildNotScoped, "same"},
	{"FBGEMM_TBE_ROCM_HIP_BACKWARD_KERNEL", "fbgemm", "embedding_backend", refInherited, buildNotScoped, "same"},
	{"FBGEMM_BOUNDS_CHECK_INDICES_V2", "fbgemm", "embedding_backend", refInherited, buildNotScoped, "same"},
	{"MIOPEN_SYSTEM_DB_PATH", "miopen", "conv_backend", refInherited, buildNotScoped, "conv kernel DB location / find mode"},
	{"MIOPEN_USER_DB_PATH", "miopen", "conv_backend", refInherited, buildNotScoped, "same"},
	{"MIOPEN_DEBUG_DISABLE_FIND_DB", "miopen", "conv_backend", refInherited, buildNotScoped, "same"},
	{"MIOPEN_FIND_MODE", "miopen", "conv_backend", refInherited, buildNotScoped, "same"},
	{"TORCH_ROCM_FA_PREFER_CK", "pytorch", "attention_backend", refInherited, buildNotScoped, "SDPA backend CK vs AOTriton"},
	{"TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL", "pytorch", "attention_backend", refInherited, buildNotScoped, "same"},
	{"TORCH_BLAS_PREFER_HIPBLASLT", "pytorch", "gemm_routing", refInherited, buildNotScoped, "torch GEMMs → hipBLASLt"},
	{"TORCH_HIPBLASLT_TUNING_FILE", "pytorch", "gemm_solution_selection", refInherited, buildNotScoped, "torch-side autotune pin"},
	{"TORCH_HIPBLASLT_TUNING_OVERRIDE_FILE", "pytorch", "gemm_solution_selection", refInherited, buildNotScoped, "same"},
	{"TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE", "pytorch", "framework", refInherited, buildNotScoped, "inductor autotune / allocator"},
	{"PYTORCH_CUDA_ALLOC_CONF", "pytorch", "framework", refInherited, buildNotScoped, "same"},
	{"LD_LIBRARY_PATH", "dynamic-loader", "loader", refInherited, buildNotScoped, "which .so loads"},
	{"HIPBLASLT_TENSILE_LIBPATH", "hipblaslt", "gemm_loading", refHipBLASLtSO, buildGEMM, "overrides Tensile DB dir"},
	{"HIPBLASLT_EXT_OP_LIBRARY_PATH", "hipblaslt", "gemm_loading", refHipBLASLtSO, buildGEMM, "overrides ExtOp lib path"},
	{"HIPBLASLT_PRELOAD_KERNELS", "hipblaslt", "gemm_loading", refHipBLASLtSO, buildGEMM, "preload path"},
	{"ROCBLAS_TENSILE_LIBPATH", "rocblas", "gemm_loading", refRocBLASSO, buildGEMM, "rocBLAS Tensile dir"},
	{"ROCBLAS_TENSILE_GEMM_OVERRIDE_PATH", "rocblas", "gemm_solution_selection", refRocBLASSO, buildGEMM, "per-GEMM override file"},
	{"ROCBLAS_USE_HIPBLASLT", "rocblas", "gemm_routing", refRocBLASSO, buildGEMM, "route via hipBLASLt"},
	{"ROCBLAS_USE_HIPBLASLT_BATCHED", "rocblas", "gemm_routing", refRocBLASSO, buildGEMM, "batched routing"},
	{"HIPBLASLT_USE_ROCROLLER", "hipblaslt", "gemm_routing", refHipBLASLtSO, buildGEMM, "rocRoller generator"},
	{"HIPBLASLT_ROCROLLER_NO_CUSTOM_KERNEL", "hipblaslt", "gemm_routing", refHipBLASLtSO, buildGEMM, "rocRoller sub-knob"},
	{"HIPBLASLT_TUNING_OVERRIDE_FILE", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "native autotune pin"},
	{"HIPBLASLT_OVERRIDE_COMPUTE_TYPE_XF32", "hipblaslt", "gemm_numeric", refHipBLASLtSO, buildGEMM, "forces xf32 path"},
	{"ROCBLAS_DEFAULT_ATOMICS_MODE", "rocblas", "gemm_numeric", refRocBLASSO, buildGEMM, "atomics on/off"},
	{"ROCBLAS_INTERNAL_FP16_ALT_IMPL", "rocblas", "gemm_numeric", refRocBLASSO, buildGEMM, "alt fp16 impl"},
	{"ROCBLAS_INTERNAL_FP16_ALT_IMPL_RNZ", "rocblas", "gemm_numeric", refRocBLASSO, buildGEMM, "alt fp16 RNZ"},
	{"ROCBLAS_INTERNAL_FORCE_VALU_FOR_DGEMM", "rocblas", "gemm_numeric", refRocBLASSO, buildGEMM, "VALU for dgemm"},
	{"ROCBLAS_STREAM_ORDER_ALLOC", "rocblas", "gemm_workspace", refRocBLASSO, buildGEMM, "stream-ordered alloc"},
	{"ROCBLAS_DEVICE_MEMORY_SIZE", "rocblas", "gemm_workspace", refRocBLASSO, buildGEMM, "workspace size"},
	{"ROCBLAS_INTERNAL_TRSM_REG_KERNEL_MEM_LIMIT", "rocblas", "gemm_workspace", refRocBLASSO, buildGEMM, "trsm kernel switch"},
	{"TENSILE_SOLUTION_INDEX", "hipblaslt+rocblas", "gemm_solution_selection", refBothSO, buildGEMM, "pins a solution"},
	{"TENSILE_SOLUTION_SELECTION_METHOD", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "selection method"},
	{"TENSILE_EXPERIMENTAL_SELECTION", "rocblas", "gemm_solution_selection", refRocBLASSO, buildGEMM, "experimental selection"},
	{"TENSILE_TAM_SELECTION_ENABLE", "rocblas", "gemm_solution_selection", refRocBLASSO, buildGEMM, "debug selection"},
	{"TENSILE_NAIVE_SEARCH", "hipblaslt+rocblas", "gemm_solution_selection", refBothSO, buildGEMM, "linear search"},
	{"TENSILE_METRIC", "hipblaslt+rocblas", "gemm_solution_selection", refBothSO, buildGEMM, "perf metric"},
	{"TENSILE_PREDICTION_LIB", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "prediction library"},
	{"TENSILE_GRIDBASED_KDTREE", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "grid-based k-d tree"},
	{"TENSILE_GRIDBASED_BATCH_EXP", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "grid-based batch"},
	{"ANALYTICAL_GEMM_HEURISTICS", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "Origami heuristics"},
	{"ANALYTICAL_GEMM_HEURISTICS_VARIANCE", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "Origami variance"},
	{"GRIDBASED_TOPSOLS", "hipblaslt", "gemm_solution_selection", refHipBLASLtSO, buildGEMM, "GridBased top-N"},
	{"TENSILE_STREAMK_DYNAMIC_GRID", "hipblaslt+rocblas", "gemm_launch_geometry", refBothSO, buildGEMM, "Stream-K grid/CU cap"},
	{"TENSILE_STREAMK_FIXED_GRID", "hipblaslt+rocblas", "gemm_launch_geometry", refBothSO, buildGEMM, "same"},
	{"TENSILE_STREAMK_MAX_CUS", "hipblaslt+rocblas", "gemm_launch_geometry", refBothSO, buildGEMM, "same"},
	{"TENSILE_STREAMK_DATA_PARALLEL", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "data-parallel variant"},
	{"TENSILE_STREAMK_DYNAMIC_WGM", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "dynamic WG mapping"},
	{"TENSILE_STREAMK_FULL_TILES", "hipblaslt+rocblas", "gemm_launch_geometry", refBothSO, buildGEMM, "Stream-K grid/CU cap"},
	{"TENSILE_STREAMK_GRID_MULTIPLIER", "hipblaslt+rocblas", "gemm_launch_geometry", refBothSO, buildGEMM, "same"},
	{"TENSILE_FIXED_WGM", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "WG/XCC mapping pin"},
	{"TENSILE_FIXED_WGMXCC", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "same"},
	{"TENSILE_FIXED_WGMXCCCHUNK", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "same"},
	{"TENSILE_DISABLE_STAGGERU", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "StaggerU offsets"},
	{"TENSILE_FIXED_STAGGERU", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "same"},
	{"TENSILE_FIXED_STAGGERU_MAPPING", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "same"},
	{"TENSILE_FIXED_STAGGERU_STRIDE_SHIFT", "hipblaslt", "gemm_launch_geometry", refHipBLASLtSO, buildGEMM, "same"},
	{"TENSILE_DB2", "hipblaslt+rocblas", "gemm_skip_work", refBothSO, buildGEMM, "bits skip kernel launches"},
	{"TENSILE_STREAMK5_FORCE_MODE", "hipblaslt", "gemm_forward_compat", refAbsent, buildGEMM, "newer Stream-K knob"},
	{"TENSILE_STREAMK_TILES", "hipblaslt", "gemm_forward_compat", refAbsent, buildGEMM, "newer Stream-K knob"},
	{"TENSILE_ADAPTIVE_GEMM_NTAB_ALGO", "hipblaslt", "gemm_forward_compat", refAbsent, buildGEMM, "adaptive-GEMM N-table algo (in ROCm 7.14 string table, call site untraced)"},
	{"TENSILE_STREAMK_SPLIT", "hipblaslt", "gemm_forward_compat", refAbsent, buildGEMM, "newer Stream-K knob"},
	{"HIPBLASLT_CHECK_NUMERICS", "hipblaslt", "gemm_numeric_check", refHipBLASLtSO, buildGEMM, "extra scan kernels + sync"},
	{"HIPBLASLT_CHECK_NUMERICS_SCAN_EVERY", "hipblaslt", "gemm_numeric_check", refHipBLASLtSO, buildGEMM, "same"},
	{"HIPBLASLT_CHECK_NUMERICS_SCAN_FROM", "hipblaslt", "gemm_numeric_check", refHipBLASLtSO, buildGEMM, "same"},
	{"HIPBLASLT_CHECK_NUMERICS_SCAN_UNTIL", "hipblaslt", "gemm_numeric_check", refHipBLASLtSO, buildGEMM, "same"},
	{"HIPBLASLT_CHECK_NUMERICS_STOP_ON_FIRST", "hipblaslt", "gemm_numeric_check", refHipBLASLtSO, buildGEMM, "same"},
	{"ROCBLAS_CHECK_NUMERICS", "rocblas", "gemm_numeric_check", refRocBLASSO, buildGEMM, "rocBLAS numeric checking"},
	{"ANALYTICAL_GEMM_DEBUG", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "Origami debug output"},
	{"ORIGAMI_LOG_FILE", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "Origami log path/format"},
	{"HIPBLASLT_LOG_FILE", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "log sink"},
	{"HIPBLASLT_LOG_LEVEL", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "log level"},
	{"HIPBLASLT_LOG_MASK", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "log mask"},
	{"HIPBLASLT_BENCH_PERF", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "client perf args"},
	{"HIPBLASLT_BENCH_PERF_ALL", "hipblaslt", "gemm_diagnostics", refAbsent, buildGEMM, "sibling; in ROCm 7.2.3"},
	{"HIPBLASLT_BENCH_PRINT_COMMAND", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "prints bench command"},
	{"HIPBLASLT_ENABLE_MARKER", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "profiler markers"},
	{"TENSILE_ENABLE_MARKER", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "profiler markers"},
	{"ROCBLAS_LAYER", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "log layer mask"},
	{"ROCBLAS_LOG_PATH", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "log sinks"},
	{"ROCBLAS_LOG_TRACE_PATH", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "log sinks"},
	{"ROCBLAS_LOG_BENCH_PATH", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "log sinks"},
	{"ROCBLAS_LOG_PROFILE_PATH", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "log sinks"},
	{"ROCBLAS_VERBOSE_HIPBLASLT_ERROR", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "verbose errors"},
	{"ROCBLAS_VERBOSE_TENSILE_ERROR", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "verbose errors"},
	{"TENSILE_DB", "hipblaslt+rocblas", "gemm_diagnostics", refBothSO, buildGEMM, "debug print mask"},
	{"TENSILE_ADAPTIVE_GEMM_LOG", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "adaptive-GEMM logging"},
	{"TENSILE_AUTO_GSU_ALGO", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "lone stdout print"},
	{"TENSILE_SOLUTION_SELECTION_TRACE", "rocblas", "gemm_diagnostics", refRocBLASSO, buildGEMM, "traces selection"},
	{"TENSILE_BENCHMARK", "hipblaslt", "gemm_diagnostics", refHipBLASLtSO, buildGEMM, "getter has no call site"},
}
