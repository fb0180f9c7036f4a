#pragma once
// NVTX injection: the program's NVTX calls (nvtx3 is header-only and looks for an injection
// library through NVTX_INJECTION64_PATH) land here and become ranges in the store. Push/pop
// ranges are matched per thread and per domain; start/end ranges may end on another thread.
//
// Exported, the only symbols of the library:
//   int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t);           NVTX_INJECTION64_PATH
//   int InitializeInjectionNvtx2Preinject(NvtxGetExportTableFunc_t);  LD_PRELOAD alone
// Each returns 0 (NVTX calls become no-ops) while profiling is off.
