#include "clock.h"

#include <elf.h>
#include <fcntl.h>
#include <time.h>

#include "run/raw_syscall.h"

namespace kjudge::profiler {

namespace {

namespace raw = kjudge::raw;

using ClockGettime = int (*)(clockid_t, timespec*);
ClockGettime g_vdso_clock = nullptr;

bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// The vDSO's clock_gettime: the kernel maps the vDSO into every process and names it in the
// auxiliary vector (AT_SYSINFO_EHDR); its dynamic symbol table (DT_HASH gives the count, as
// both x86-64's and aarch64's are linked with one) names the function.
ClockGettime find_vdso_clock() {
  const long fd = raw::openat(AT_FDCWD, "/proc/self/auxv", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  Elf64_auxv_t aux[80];
  const long got = raw::pread(static_cast<int>(fd), aux, sizeof aux, 0);
  raw::close(static_cast<int>(fd));
  std::uintptr_t base = 0;
  for (long i = 0; got > 0 && i < got / static_cast<long>(sizeof aux[0]); ++i)
    if (aux[i].a_type == AT_SYSINFO_EHDR) base = aux[i].a_un.a_val;
  if (base == 0) return nullptr;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64)
    return nullptr;
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
  std::uintptr_t load = 0;
  const Elf64_Dyn* dyn = nullptr;
  bool loaded = false;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD && !loaded) {
      load = base + ph[i].p_offset - ph[i].p_vaddr;
      loaded = true;
    }
    if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const Elf64_Dyn*>(base + ph[i].p_offset);
  }
  if (!loaded || dyn == nullptr) return nullptr;
  const Elf64_Sym* syms = nullptr;
  const char* names = nullptr;
  const Elf64_Word* hash = nullptr;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_SYMTAB) syms = reinterpret_cast<const Elf64_Sym*>(load + dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_STRTAB) names = reinterpret_cast<const char*>(load + dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_HASH) hash = reinterpret_cast<const Elf64_Word*>(load + dyn->d_un.d_ptr);
  }
  if (syms == nullptr || names == nullptr || hash == nullptr) return nullptr;
#if defined(__x86_64__)
  const char* wanted = "__vdso_clock_gettime";
#else
  const char* wanted = "__kernel_clock_gettime";
#endif
  for (Elf64_Word i = 0; i < hash[1]; ++i)  // hash[1]: the number of symbols
    if (syms[i].st_value != 0 && ELF64_ST_TYPE(syms[i].st_info) == STT_FUNC &&
        same(names + syms[i].st_name, wanted))
      return reinterpret_cast<ClockGettime>(load + syms[i].st_value);
  return nullptr;
}

// Before any other constructor of the library: the exported clock serves a program (the Triton
// runner) even where no channel was named.
__attribute__((constructor(101))) void find_clock() { g_vdso_clock = find_vdso_clock(); }

}  // namespace

std::uint64_t now_ns() {
  timespec ts{};
  if (g_vdso_clock != nullptr && g_vdso_clock(CLOCK_REALTIME, &ts) == 0)
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
           static_cast<std::uint64_t>(ts.tv_nsec);
  return static_cast<std::uint64_t>(raw::clock_ns(CLOCK_REALTIME));
}

std::uint32_t thread_id() {
  // A system call per NVTX event would be the profiler's largest cost on the host.
  thread_local const std::uint32_t tid = static_cast<std::uint32_t>(raw::gettid());
  return tid;
}

}  // namespace kjudge::profiler
